import type { ServerResponse } from 'node:http';
import type { HostStore } from '../store/store.js';
import type { StoredNotification } from '../store/records.js';

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
  /** Notifications published while the backlog was being read. */
  pending: StoredNotification[] | undefined;
  unread: number;
  closed: boolean;
}

export interface SseHubOptions {
  /** Interval of `:` keep-alive comments. */
  keepAliveMs?: number;
  /** A client more than this many bytes behind is disconnected (it resumes with Last-Event-ID). */
  maxBufferedBytes?: number;
  /** Client reconnection delay sent as `retry:`. */
  retryMs?: number;
}

/**
 * Server-Sent Events of spec 6. A stream starts with `ready`, replays the notifications after the
 * client's Last-Event-ID from the store (so nothing is lost across reconnects and restarts), then
 * sends each new one as `notification:new` with its numeric id, followed by `notification:count`.
 * Frames are serialized once and written to every connection of their scope. Memory stays bounded:
 * a connection whose unsent data passes `maxBufferedBytes` is closed and resumes from the store.
 */
export class SseHub {
  private readonly connections = new Set<Connection>();
  private readonly timer: NodeJS.Timeout;
  private readonly keepAliveMs: number;
  private readonly maxBufferedBytes: number;
  private readonly retryMs: number;

  constructor(
    private readonly store: HostStore,
    options: SseHubOptions = {},
  ) {
    this.keepAliveMs = options.keepAliveMs ?? 20_000;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 1024 * 1024;
    this.retryMs = options.retryMs ?? 3_000;
    this.timer = setInterval(() => this.keepAlive(), this.keepAliveMs);
    this.timer.unref();
  }

  get size(): number {
    return this.connections.size;
  }

  /** Starts a stream on a hijacked response. */
  async open(response: ServerResponse, scope: StreamScope, lastEventId: number, ready: Record<string, unknown>): Promise<void> {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const connection: Connection = { scope, response, lastId: lastEventId, pending: [], unread: 0, closed: false };
    this.connections.add(connection);
    const close = () => this.drop(connection);
    response.on('close', close);
    response.on('error', close);
    this.write(connection, `retry: ${this.retryMs}\nevent: ready\ndata: ${JSON.stringify({ ...ready, lastEventId })}\n\n`);
    // Replay what the client missed, in pages, then what arrived meanwhile.
    for (;;) {
      const page = await this.store.notificationsAfter(scope.keyId, connection.lastId, scope.queryId, 500);
      for (const notification of page) this.send(connection, notification, frameOf(notification));
      if (page.length < 500 || connection.closed) break;
    }
    const pending = connection.pending ?? [];
    connection.pending = undefined;
    for (const notification of pending) if (notification.id > connection.lastId) this.send(connection, notification, frameOf(notification));
    this.write(connection, countFrame(connection));
  }

  /** A new notification: written to every stream of its key (and of its query). */
  publish(notification: StoredNotification): void {
    let frame: string | undefined;
    for (const connection of this.connections) {
      if (connection.scope.keyId !== notification.keyId) continue;
      if (connection.scope.queryId !== undefined && connection.scope.queryId !== notification.data.queryId) continue;
      if (connection.pending) {
        connection.pending.push(notification);
        continue;
      }
      frame ??= frameOf(notification);
      this.send(connection, notification, frame);
      this.write(connection, countFrame(connection));
    }
  }

  /** Ends the streams of a query that is done (after what they were sent): `event: end`, then close. */
  end(queryId: string, status: string): void {
    for (const connection of this.connections) {
      if (connection.scope.queryId !== queryId) continue;
      this.write(connection, `event: end\ndata: ${JSON.stringify({ queryId, status })}\n\n`);
      connection.response.end();
      this.drop(connection);
    }
  }

  close(): void {
    clearInterval(this.timer);
    for (const connection of this.connections) {
      connection.response.end();
      this.drop(connection);
    }
  }

  private send(connection: Connection, notification: StoredNotification, frame: string): void {
    if (notification.id <= connection.lastId) return;
    connection.lastId = notification.id;
    connection.unread += 1;
    this.write(connection, frame);
  }

  private write(connection: Connection, text: string): void {
    if (connection.closed) return;
    connection.response.write(text);
    if (connection.response.writableLength > this.maxBufferedBytes) {
      // Too far behind: drop it; the client reconnects with Last-Event-ID and resumes from the store.
      connection.response.destroy();
      this.drop(connection);
    }
  }

  private keepAlive(): void {
    for (const connection of this.connections) this.write(connection, ': keep-alive\n\n');
  }

  private drop(connection: Connection): void {
    connection.closed = true;
    this.connections.delete(connection);
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
