import type { ServerResponse } from 'node:http';
import type { HostStore } from '../store/store.js';
import type { StoredNotification } from '../store/records.js';
import { MemoryStreamSlots, type StreamSlot, type StreamSlots } from './stream-slots.js';

export type { StreamSlot } from './stream-slots.js';

export interface StreamScope {
  keyId: number;
  /** One query's stream; all the key's queries when absent. */
  queryId?: string;
}

interface Connection {
  scope: StreamScope;
  response: ServerResponse;
  /** Highest notification id written. */
  lastId: number;
  /** While the backlog is replayed: notifications published meanwhile (undefined once live). */
  pending: StoredNotification[] | undefined;
  /** More than a page was published during the replay: `pending` was dropped, read the store again. */
  overflowed: boolean;
  /** The query ended while the backlog was replayed: end the stream after it. */
  ending: string | undefined;
  unread: number;
  closed: boolean;
  /** A read of the store for this connection is under way (cluster), and whether another was asked meanwhile. */
  reading: boolean;
  readAgain: boolean;
  /** The key's stream slot this connection holds, given back when it closes. */
  slot: StreamSlot | undefined;
  /** Whether its writes of this turn are held, to reach the socket together at the end of the turn. */
  corked?: boolean;
}

/** Options of an {@link SseHub}: keep-alive interval, how far behind a client may fall, and the reconnection delay. */
export interface SseHubOptions {
  /** Interval of `:` keep-alive comments. */
  keepAliveMs?: number;
  /** A client more than this many bytes behind is disconnected (it resumes with Last-Event-ID). */
  maxBufferedBytes?: number;
  /** Client reconnection delay sent as `retry:`. */
  retryMs?: number;
  /** Most streams one key may have open (and opening) at once; {@link SseHub.reserve} refuses more. */
  maxStreamsPerKey?: number;
  /** Where the streams of each key are counted (default this process's memory; shared by the hosts of a PostgreSQL database: PgStreamSlots). */
  slots?: StreamSlots;
  /**
   * Several hosts on one store (a cluster): notifications are read from the store, never written from
   * memory, so that a stream gets those other hosts stored, in id order. Every this many ms the live
   * streams read what is new, and a stream of a query another host ended gets its `end`. Off by default.
   */
  pollStoreMs?: number;
}

/** Default of {@link SseHubOptions.maxStreamsPerKey} (EQL_SSE_MAX_STREAMS_PER_KEY). */
export const DEFAULT_MAX_STREAMS_PER_KEY = 10;

/** Notifications read from the store at a time, and most kept in memory per replaying connection. */
const PAGE = 500;

/**
 * Server-Sent Events of spec 6. A stream starts with `ready`, replays the notifications after the
 * client's Last-Event-ID from the store (so nothing is lost across reconnects and restarts), then
 * sends each new one as `notification:new` with its numeric id, followed by `notification:count`.
 * Frames are serialized once and written to every connection of their scope.
 *
 * Memory stays bounded. The replay follows the socket's pace (it waits for the data to drain before
 * writing more), and what is published meanwhile is kept up to a page, else read from the store
 * again. A live connection whose unsent data passes `maxBufferedBytes` is closed and resumes from
 * the store. That lag is measured after the writes of a turn of the event loop have been handed to
 * the socket (Node buffers every write of one turn until the next tick), so a burst a client takes
 * at once does not count as lag.
 */
export class SseHub {
  private readonly connections = new Set<Connection>();
  private readonly timer: NodeJS.Timeout;
  private readonly keepAliveMs: number;
  private readonly maxBufferedBytes: number;
  private readonly retryMs: number;
  /** Most concurrent streams of a key. */
  readonly maxStreamsPerKey: number;
  /** Slots held per key: streams open, and requests past `reserve` that have not opened theirs yet. */
  readonly slots: StreamSlots;
  private lagCheck: NodeJS.Immediate | undefined;
  private closed = false;
  private readonly poller: NodeJS.Timeout | undefined;
  private readonly fromStore: boolean;

  constructor(
    private readonly store: HostStore,
    options: SseHubOptions = {},
  ) {
    this.keepAliveMs = options.keepAliveMs ?? 20_000;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;
    this.retryMs = options.retryMs ?? 3_000;
    this.maxStreamsPerKey = options.maxStreamsPerKey ?? DEFAULT_MAX_STREAMS_PER_KEY;
    this.slots = options.slots ?? new MemoryStreamSlots();
    this.timer = setInterval(() => this.keepAlive(), this.keepAliveMs);
    this.timer.unref();
    this.fromStore = options.pollStoreMs !== undefined;
    if (options.pollStoreMs !== undefined) {
      this.poller = setInterval(() => this.catchUp(), options.pollStoreMs);
      this.poller.unref();
    }
  }

  /** How many SSE connections are open. */
  get size(): number {
    return this.connections.size;
  }

  /** Bytes written to the streams and not yet taken by their sockets (all connections). */
  get bufferedBytes(): number {
    let total = 0;
    for (const connection of this.connections) total += connection.response.writableLength;
    return total;
  }

  /** How many stream slots a key holds on this host (its streams open or opening here). */
  streamsOf(keyId: number): number {
    return this.slots.heldHere(keyId);
  }

  /**
   * Takes one of a key's `maxStreamsPerKey` stream slots before its request is checked further, so
   * that requests arriving together cannot pass the cap; undefined when none is free. Hand the slot to
   * {@link open}, which gives it back when the stream closes, or release it when no stream opens.
   */
  reserve(keyId: number): Promise<StreamSlot | undefined> {
    return this.slots.reserve(keyId, this.maxStreamsPerKey);
  }

  /** Starts a stream on a hijacked response; `slot` (from {@link reserve}) is given back when it closes. */
  async open(response: ServerResponse, scope: StreamScope, lastEventId: number, ready: Record<string, unknown>, slot?: StreamSlot): Promise<void> {
    // The host is shutting down (a request that passed its checks meanwhile): no stream to hold it open.
    if (this.closed) {
      slot?.release();
      response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end('the host is shutting down');
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const connection: Connection = { scope, response, lastId: lastEventId, pending: [], overflowed: false, ending: undefined, unread: 0, closed: false, reading: false, readAgain: false, slot };
    this.connections.add(connection);
    const close = () => this.drop(connection);
    response.on('close', close);
    response.on('error', close);
    // A client gone before the stream opened (while its request was checked) never emits 'close' again.
    if (response.destroyed || response.socket === null || response.socket.destroyed) {
      this.drop(connection);
      return;
    }
    this.write(connection, `retry: ${this.retryMs}\nevent: ready\ndata: ${JSON.stringify({ ...ready, lastEventId })}\n\n`);
    // Replay what the client missed, in pages, at the pace the socket takes it.
    for (;;) {
      const page = await this.store.notificationsAfter(scope.keyId, connection.lastId, scope.queryId, PAGE);
      for (const notification of page) {
        this.send(connection, notification, frameOf(notification));
        if (response.writableLength >= this.maxBufferedBytes / 2) await this.flushed(connection);
        if (connection.closed) return;
      }
      if (connection.closed) return;
      if (page.length === PAGE) continue;
      if (!connection.overflowed) break;
      // What was published during the replay did not fit in memory: it is in the store, read on.
      connection.overflowed = false;
      connection.pending = [];
    }
    const pending = connection.pending ?? [];
    connection.pending = undefined;
    for (const notification of pending) this.send(connection, notification, frameOf(notification));
    this.write(connection, countFrame(connection));
    if (connection.ending !== undefined) this.finish(connection, connection.ending);
  }

  /**
   * Reads the store for what is new on the live streams of a key (all keys when absent): how a stream
   * gets what other hosts stored (`pollStoreMs`). Each connection reads after its own last id, one read
   * at a time; a stream of a query that ended meanwhile gets its `end` once it has read everything.
   */
  catchUp(keyId?: number): void {
    for (const connection of this.connections) {
      if (connection.pending || connection.closed) continue;
      if (keyId !== undefined && connection.scope.keyId !== keyId) continue;
      if (connection.reading) {
        connection.readAgain = true;
        continue;
      }
      void this.readStore(connection);
    }
  }

  private async readStore(connection: Connection): Promise<void> {
    connection.reading = true;
    try {
      do {
        connection.readAgain = false;
        const { keyId, queryId } = connection.scope;
        let sent = 0;
        for (;;) {
          const page = await this.store.notificationsAfter(keyId, connection.lastId, queryId, PAGE);
          for (const notification of page) {
            this.send(connection, notification, frameOf(notification));
            sent += 1;
          }
          if (connection.closed || page.length < PAGE) break;
          if (connection.response.writableLength >= this.maxBufferedBytes / 2) await this.flushed(connection);
        }
        if (connection.closed) return;
        if (sent > 0) this.write(connection, countFrame(connection));
        if (queryId !== undefined) {
          const record = await this.store.queryById(queryId);
          if (connection.closed) return;
          if (record && record.deletedAt !== null) this.finish(connection, 'deleted');
          else if (record && record.status !== 'active') this.finish(connection, record.status);
        }
      } while (connection.readAgain && !connection.closed);
    } catch {
      // The store did not answer: the next poll reads again.
    } finally {
      connection.reading = false;
    }
  }

  /** A new notification: written to every stream of its key (and of its query); on a shared store, read from it (see {@link catchUp}). */
  publish(notification: StoredNotification): void {
    if (this.fromStore) {
      this.catchUp(notification.keyId);
      return;
    }
    let frame: string | undefined;
    for (const connection of this.connections) {
      if (connection.scope.keyId !== notification.keyId) continue;
      if (connection.scope.queryId !== undefined && connection.scope.queryId !== notification.data.queryId) continue;
      if (connection.pending) {
        if (connection.pending.length < PAGE) connection.pending.push(notification);
        else {
          connection.pending = [];
          connection.overflowed = true;
        }
        continue;
      }
      frame ??= frameOf(notification);
      // The frame and the new count go out in one write: one chunk per stream and notification.
      if (notification.id > connection.lastId) {
        connection.lastId = notification.id;
        connection.unread += 1;
        this.write(connection, frame + countFrame(connection));
      } else this.write(connection, countFrame(connection));
    }
  }

  /**
   * The readiness of a query's conditions changed (ready, warming_up, no_data): `event: query:state`
   * to the live streams of its key and of the query. Not stored and not replayed: a client that
   * reconnects polls the query for its current states.
   */
  publishState(keyId: number, queryId: string, data: Record<string, unknown>): void {
    let frame: string | undefined;
    for (const connection of this.connections) {
      if (connection.scope.keyId !== keyId || connection.pending) continue;
      if (connection.scope.queryId !== undefined && connection.scope.queryId !== queryId) continue;
      frame ??= `event: query:state\ndata: ${JSON.stringify({ queryId, ...data })}\n\n`;
      this.write(connection, frame);
    }
  }

  /**
   * Ends the streams of a query that is done (after what they were sent): `event: end`, then close. A
   * deleted query is also gone from the all-queries streams still replaying: its notifications held for
   * them are dropped (the store no longer replays them).
   */
  end(queryId: string, status: string): void {
    for (const connection of this.connections) {
      if (status === 'deleted' && connection.scope.queryId === undefined && connection.pending) {
        connection.pending = connection.pending.filter((notification) => notification.data.queryId !== queryId);
      }
      if (connection.scope.queryId !== queryId) continue;
      // A stream still replaying its backlog ends once it has sent it.
      if (connection.pending) connection.ending = status;
      else this.finish(connection, status);
    }
  }

  /**
   * Ends every stream (the host is shutting down) and lets go of their sockets once what was written
   * is sent: a kept-alive connection (or a client that never hangs up) must not hold the server's
   * close. Streams asked for afterwards are refused.
   */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    if (this.poller) clearInterval(this.poller);
    if (this.lagCheck) clearImmediate(this.lagCheck);
    this.lagCheck = undefined;
    for (const connection of this.connections) {
      const { response } = connection;
      const socket = response.socket;
      response.end(() => socket?.destroySoon());
      this.drop(connection);
    }
  }

  private finish(connection: Connection, status: string): void {
    this.write(connection, `event: end\ndata: ${JSON.stringify({ queryId: connection.scope.queryId, status })}\n\n`);
    connection.response.end();
    this.drop(connection);
  }

  private send(connection: Connection, notification: StoredNotification, frame: string): void {
    if (notification.id <= connection.lastId) return;
    connection.lastId = notification.id;
    connection.unread += 1;
    this.write(connection, frame);
  }

  /**
   * Writes to the stream. The writes of one turn of the event loop (a storm's batch of notifications
   * stored together, each with its count) reach the socket together, in one system call, once the turn's
   * callbacks and promises have run (issue 47); `end()` sends what is held at once.
   */
  private write(connection: Connection, text: string): void {
    if (connection.closed) return;
    if (!connection.corked) {
      connection.corked = true;
      connection.response.cork();
      process.nextTick(() => {
        connection.corked = false;
        if (!connection.response.destroyed) connection.response.uncork();
      });
    }
    connection.response.write(text);
    this.lagCheck ??= setImmediate(() => this.dropLagging());
  }

  /**
   * Runs once the writes of this turn have reached the sockets: what a socket still holds then is
   * what its client has not taken. Too far behind: drop it; it reconnects with Last-Event-ID and
   * resumes from the store.
   */
  private dropLagging(): void {
    this.lagCheck = undefined;
    for (const connection of this.connections) {
      if (connection.response.writableLength <= this.maxBufferedBytes) continue;
      connection.response.destroy();
      this.drop(connection);
    }
  }

  /** Waits until the socket has taken most of what was written (or the connection is gone). */
  private async flushed(connection: Connection): Promise<void> {
    const { response } = connection;
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (!connection.closed && response.writableLength >= this.maxBufferedBytes / 2) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          response.off('drain', done);
          response.off('close', done);
          resolve();
        };
        const timer = setTimeout(done, 100);
        response.on('drain', done);
        response.on('close', done);
      });
    }
  }

  private keepAlive(): void {
    for (const connection of this.connections) this.write(connection, ': keep-alive\n\n');
  }

  private drop(connection: Connection): void {
    connection.closed = true;
    this.connections.delete(connection);
    connection.slot?.release();
  }
}

function frameOf(notification: StoredNotification): string {
  const { keyId: _keyId, ownerId: _ownerId, ...payload } = notification;
  return `id: ${notification.id}\nevent: notification:new\ndata: ${JSON.stringify(payload)}\n\n`;
}

function countFrame(connection: Connection): string {
  const data = connection.scope.queryId === undefined ? { unread: connection.unread } : { queryId: connection.scope.queryId, unread: connection.unread };
  return `event: notification:count\ndata: ${JSON.stringify(data)}\n\n`;
}
