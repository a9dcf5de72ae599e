import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { describe, it } from 'vitest';
import { postgresProblem } from './postgres.js';
import { MarketBus } from '../../src/scale-out/market-bus.js';

/**
 * NATS JetStream for tests: the server at EQL_TEST_NATS_URL (default the project machines' local one),
 * a stream of its own per use (deleted after), and suites that need it with PostgreSQL, reported skipped
 * by name when either server is absent, or failing under CI=true (where both must be there).
 */

export const TEST_NATS_URL = process.env.EQL_TEST_NATS_URL?.trim() || 'nats://127.0.0.1:4222';

let reachable: Promise<string | undefined> | undefined;
/** Why the test NATS server cannot serve JetStream (undefined when it can), asked once per test file. */
export function natsProblem(): Promise<string | undefined> {
  reachable ??= (async () => {
    try {
      const connection = await connect({ servers: TEST_NATS_URL, timeout: 3_000, maxReconnectAttempts: 0 });
      try {
        const info = await connection.request('$JS.API.INFO', undefined, { timeout: 3_000 });
        const body = info.json<{ error?: { description?: string } }>();
        return body.error ? `JetStream: ${body.error.description ?? 'not enabled'}` : undefined;
      } finally {
        await connection.close();
      }
    } catch (error) {
      return (error as Error).message;
    }
  })();
  return reachable;
}

/**
 * `describe` when PostgreSQL and NATS JetStream answer; else a skipped suite named after what is missing,
 * or under CI=true a failing one. Call with top-level await.
 */
export async function describeWithBus(name: string, body: () => void): Promise<void> {
  const [pgProblem, busProblem] = await Promise.all([postgresProblem(), natsProblem()]);
  const missing = [
    ...(pgProblem === undefined ? [] : [`PostgreSQL not reachable (${pgProblem})`]),
    ...(busProblem === undefined ? [] : [`NATS JetStream not reachable at ${TEST_NATS_URL} (${busProblem})`]),
  ];
  if (missing.length === 0) {
    describe(name, body);
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it(`needs PostgreSQL and NATS JetStream (CI=true): ${missing.join('; ')}`, () => {
        throw new Error(`${missing.join('; ')}; set EQL_TEST_DATABASE_URL / EQL_TEST_NATS_URL or start the servers`);
      });
    });
    return;
  }
  describe.skip(`${missing.join('; ')}: skipped (${name})`, body);
}

/** A stream name of its own (EQL_TEST_<random>) and a way to delete it. */
export function freshStream(label: string): { name: string; drop(): Promise<void> } {
  const name = `EQL_${label.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}_${randomBytes(4).toString('hex')}`;
  return {
    name,
    drop: async () => {
      const bus = await MarketBus.connect(TEST_NATS_URL, { stream: name });
      await bus.destroy().catch(() => undefined);
      await bus.close();
    },
  };
}
