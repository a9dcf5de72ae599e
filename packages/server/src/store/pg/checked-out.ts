import type pg from 'pg';

/**
 * Runs `work` on a client checked out of `pool`, and gives it back. pg-pool takes its own error listener
 * off a client while it is checked out, so a connection the server breaks meanwhile (a restart of
 * PostgreSQL, a cut network) would emit an `error` event nobody hears and end the process: one is
 * listened to here for as long as the client is out. A client that broke, or whose work threw, is
 * released with the error, so the pool closes it instead of handing a spoiled session (a transaction
 * left open, a lock still held) to the next caller.
 */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error): void => {
    broken ??= error;
  };
  client.on('error', onError);
  try {
    return await work(client);
  } catch (error) {
    broken ??= error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    // release() puts the pool's own listener back before this one is taken off.
    client.release(broken);
    client.off('error', onError);
  }
}

/** Runs `work` in a transaction on one checked-out client: committed when it resolves, rolled back when it throws. */
export function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (client) => {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}
