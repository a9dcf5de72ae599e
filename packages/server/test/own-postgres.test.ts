import pg from 'pg';
import { expect, it } from 'vitest';
import { describeWithOwnPostgres, startOwnPostgres } from './support/own-postgres.js';

async function selectOne(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query<{ x: number }>('SELECT 1 AS x')).rows[0]!.x;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describeWithOwnPostgres('a PostgreSQL of the test’s own (the fault tests stop and start it)', () => {
  it('answers, is gone after an immediate stop, and answers again with its data after a start', { timeout: 180_000 }, async () => {
    const server = await startOwnPostgres();
    try {
      expect(await selectOne(server.url)).toBe(1);
      const client = new pg.Client(server.url);
      await client.connect();
      await client.query('CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)');
      await client.end();
      await server.stop('immediate');
      expect(server.running()).toBe(false);
      await expect(selectOne(server.url)).rejects.toThrow();
      await server.start();
      const again = new pg.Client(server.url);
      again.on('error', () => undefined);
      await again.connect();
      expect((await again.query<{ x: number }>('SELECT x FROM kept')).rows).toEqual([{ x: 7 }]);
      await again.end();
    } finally {
      await server.destroy();
    }
  });
});
