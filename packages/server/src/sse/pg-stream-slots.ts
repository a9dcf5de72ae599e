import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { inTransaction } from '../store/pg/checked-out.js';
import type { StreamSlot, StreamSlots } from './stream-slots.js';

/**
 * The advisory lock class taken (per schema and key, for the length of a transaction) to reserve a
 * stream slot: the count of a key's live slots and the insert of a new one are one step for every host.
 */
export const STREAM_SLOT_LOCK_CLASS = 0x45514c03;

/** Options of {@link PgStreamSlots}. */
export interface PgStreamSlotsOptions {
  /** This host's id (EQL_NODE_ID): its rows are renewed and cleaned up by it. */
  nodeId: string;
  /** How long a slot lasts without renewal: a host that dies (SIGKILL) holds its slots this long at most. */
  ttlMs: number;
  /** How often this host renews its slots (default a third of `ttlMs`). */
  renewEveryMs?: number;
  /** Where a failure of PostgreSQL is reported (at most once a minute, with the number of failures since). */
  warn?: (message: string, error?: unknown) => void;
}

const WARN_EVERY_MS = 60_000;

const LOCK_KEY = "SELECT pg_advisory_xact_lock($1, hashtext(COALESCE(current_schema(), '') || ':' || $2::text))";
// Run after the key's lock is taken: the count sees every slot the other hosts committed before.
const RESERVE = `INSERT INTO sse_streams (id, key_id, node_id, expires_at)
  SELECT $1, $2, $3, now() + $4::float8 * interval '1 millisecond'
  WHERE (SELECT count(*) FROM sse_streams WHERE key_id = $2 AND expires_at > now()) < $5
  RETURNING id`;
const RELEASE = 'DELETE FROM sse_streams WHERE id = $1';
// This host's rows are exactly the slots it holds: a release that failed is deleted, a slot taken while
// the database failed (or whose row expired meanwhile, or was lost with the unlogged table) is written.
const FORGET = 'DELETE FROM sse_streams WHERE node_id = $1 AND NOT (id = ANY($2::text[]))';
const RENEW = `INSERT INTO sse_streams (id, key_id, node_id, expires_at)
  SELECT id, key_id, $1, now() + $4::float8 * interval '1 millisecond' FROM unnest($2::text[], $3::bigint[]) AS held (id, key_id)
  ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at`;
const PRUNE = 'DELETE FROM sse_streams WHERE expires_at <= now()';

/**
 * The SSE cap on streams per key, shared by the hosts of one PostgreSQL database: each slot a host
 * holds is a row of `sse_streams` (migration 6) with the host's node id and an expiry the host renews
 * every `renewEveryMs`. A key's live slots are its rows not expired, counted and added under a lock of
 * the key, so that hosts reserving at once cannot pass the cap together. A host that dies (SIGKILL, a
 * lost network) stops renewing: its slots count no more `ttlMs` later. Times are the database's.
 *
 * When PostgreSQL fails (unreachable, a statement refused), a stream is not refused for it: its slot
 * is counted in this host's memory only, the cap holding per host as on SQLite, and a warning is
 * logged, at most once a minute. The next renewal that succeeds writes every slot the host holds, so
 * the shared count is exact again once the database answers (a key may be above its cap until some of
 * its streams close; new ones are refused meanwhile). A host whose renewals fail longer than `ttlMs`
 * has its slots uncounted by the others for that time.
 *
 * This host's statements run one at a time, in order: a renewal never writes back a slot released meanwhile.
 */
export class PgStreamSlots implements StreamSlots {
  /** The slots this host holds: id to key. */
  private readonly held = new Map<string, number>();
  private queue: Promise<unknown> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private lastWarning = -Infinity;
  /** Failures not reported yet (they came within a minute of the last warning). */
  private unreported = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PgStreamSlotsOptions,
  ) {
    // The first renewal clears the rows a previous life of this node id left.
    void this.renew();
    this.timer = setInterval(() => void this.renew(), Math.max(50, options.renewEveryMs ?? Math.floor(options.ttlMs / 3)));
    this.timer.unref();
  }

  reserve(keyId: number, max: number): Promise<StreamSlot | undefined> {
    // The host is shutting down: the hub answers 503 and gives this back; nothing to write.
    if (this.closed) return Promise.resolve({ release: () => undefined });
    return this.inTurn(async () => {
      const id = randomUUID();
      try {
        if (!(await this.insert(id, keyId, max))) return undefined;
      } catch (error) {
        this.warn('reserve', error);
        if (this.heldHere(keyId) >= max) return undefined;
      }
      return this.slot(id, keyId);
    });
  }

  heldHere(keyId: number): number {
    let count = 0;
    for (const key of this.held.values()) if (key === keyId) count += 1;
    return count;
  }

  /**
   * Writes this host's slots with a new expiry, deletes its rows of slots it no longer holds, and
   * prunes the expired rows of every host. Runs every `renewEveryMs`; resolves when done (never rejects).
   */
  renew(): Promise<void> {
    return this.inTurn(async () => {
      const ids = [...this.held.keys()];
      const keys = ids.map((id) => this.held.get(id)!);
      try {
        await this.pool.query(FORGET, [this.options.nodeId, ids]);
        if (ids.length > 0) await this.pool.query(RENEW, [this.options.nodeId, ids, keys, this.options.ttlMs]);
        await this.pool.query(PRUNE);
      } catch (error) {
        this.warn('renew', error);
      }
    });
  }

  /** Resolves once the statements asked so far (a release's included) are done. */
  settled(): Promise<void> {
    return this.inTurn(() => Promise.resolve());
  }

  /** Stops renewing and deletes this host's rows (the slots of streams still open are given back). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.held.clear();
    await this.inTurn(async () => {
      try {
        await this.pool.query(FORGET, [this.options.nodeId, []]);
      } catch {
        // They expire after the TTL.
      }
    });
  }

  private async insert(id: string, keyId: number, max: number): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      await client.query(LOCK_KEY, [STREAM_SLOT_LOCK_CLASS, keyId]);
      const inserted = await client.query(RESERVE, [id, keyId, this.options.nodeId, this.options.ttlMs, max]);
      return (inserted.rowCount ?? 0) > 0;
    });
  }

  private slot(id: string, keyId: number): StreamSlot {
    this.held.set(id, keyId);
    return {
      release: () => {
        if (!this.held.delete(id) || this.closed) return;
        void this.inTurn(async () => {
          try {
            await this.pool.query(RELEASE, [id]);
          } catch (error) {
            // The next renewal deletes it (a row of this host that it does not hold).
            this.warn('release', error);
          }
        });
      },
    };
  }

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.queue.then(work);
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private warn(operation: string, error: unknown): void {
    this.unreported += 1;
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    const failures = this.unreported;
    this.unreported = 0;
    this.options.warn?.(`stream slots: PostgreSQL failed (${operation}, ${failures} failure${failures === 1 ? '' : 's'} since the last warning); the cap on streams per key holds per host until it answers`, error);
  }
}
