// The benchmarks' PostgreSQL and NATS (the machine's servers, as the tests use them), and a one-statement
// admin connection for making and dropping their schemas.
import pg from 'pg';

export const DATABASE_URL = process.env.EQL_TEST_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/test';
export const NATS_URL = process.env.EQL_TEST_NATS_URL?.trim() || 'nats://127.0.0.1:4222';

/** Runs one statement on its own connection; returns its rows. */
export async function admin(sql, params = []) {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}
