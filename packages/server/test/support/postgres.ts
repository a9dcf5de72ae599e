import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, it } from 'vitest';
import { redactDatabaseUrl } from '../../src/store/pg/database-url.js';

/**
 * PostgreSQL for tests: the server at EQL_TEST_DATABASE_URL (default the project machines' local one),
 * a fresh schema per use (dropped after), and suites that report themselves skipped by name when no
 * server answers, or fail under CI=true (where the server must be there).
 */

export const TEST_DATABASE_URL = process.env.EQL_TEST_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/test';

/** Whether the test server answers, asked once per test file (a connection and `SELECT 1`, 3 s at most). */
let reachable: Promise<string | undefined> | undefined;
export function postgresProblem(): Promise<string | undefined> {
  reachable ??= (async () => {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return undefined;
    } catch (error) {
      return (error as Error).message;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return reachable;
}

/**
 * `describe` when the test server answers; else a skipped suite named "PostgreSQL not reachable at
 * <url without password>: skipped", or under CI=true a failing one. Call with top-level await.
 */
export async function describeWithPostgres(name: string, body: () => void): Promise<void> {
  const problem = await postgresProblem();
  if (problem === undefined) {
    describe(name, body);
    return;
  }
  const where = `PostgreSQL not reachable at ${redactDatabaseUrl(TEST_DATABASE_URL)}`;
  if (process.env.CI === 'true') {
    describe(name, () => {
      it(`needs PostgreSQL (CI=true): ${where}`, () => {
        throw new Error(`${where} (${problem}); set EQL_TEST_DATABASE_URL or start the server`);
      });
    });
    return;
  }
  describe.skip(`${where}: skipped (${name})`, body);
}

/** A schema of its own in the test database: `url` connects with it as the search_path. */
export interface TestSchema {
  name: string;
  url: string;
  /** Drops the schema and everything in it. */
  drop(): Promise<void>;
}

/** Runs SQL on the test database with a connection of its own. */
export async function adminQuery<T extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** Creates a fresh schema (eql_test_<random>) and the URL of the test database with it as the search_path. */
export async function freshSchema(label = 'test'): Promise<TestSchema> {
  const name = `eql_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE SCHEMA ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await adminQuery(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
    },
  };
}
