import { EventSourceParserStream } from 'eventsource-parser/stream';
import { EqlApiError, EqlClientError } from './errors.js';
import type { RequestFetch } from './host-fetch.js';
import { retryAfterSeconds, type Sleep } from './retry-after.js';

/**
 * Notifications as an async iterator over the host's Server-Sent Events (docs/http-api.md, "Events"):
 * each event is yielded as it arrives; when the connection drops (the host restarted, a proxy cut it,
 * the host dropped a slow reader) the stream reconnects with `Last-Event-ID`, so every notification
 * comes once and in order across reconnects. It ends when a query's stream says `end`, when the host
 * says there is nothing more (204), or when the caller breaks out of the loop or aborts its signal.
 */

/** A notification (spec 2.10). */
export interface Notification {
  id: number;
  type: string;
  category: string;
  title: string;
  body: string;
  data: { queryId: string } & Record<string, unknown>;
  priority: string;
  createdAt: string;
}

/** One event of a stream. `id` is set on notifications: the point to resume from. */
export type StreamEvent =
  | { event: 'ready'; data: { lastEventId: string | null; queryId?: string; status?: string } }
  | { event: 'notification:new'; id: string; data: Notification }
  | { event: 'notification:count'; data: { unread: number } }
  | { event: 'query:state'; data: { queryId: string; at: string; conditionStates: unknown } }
  | { event: 'end'; data: { queryId: string; status: string } }
  | { event: 'unknown'; name: string; id?: string; data: unknown };

/** Which stream to follow and from where. */
export interface StreamOptions {
  /** One query's stream; without it, every query of the key. */
  queryId?: string;
  /** Resume after this notification id (what the last `notification:new` carried). */
  lastEventId?: string;
  /** Stops the stream (the loop ends without an error). */
  signal?: AbortSignal;
  /** Reconnect when the connection drops (default true); false ends the loop with `EqlClientError` `stream_closed`. */
  reconnect?: boolean;
  /**
   * The first wait before reconnecting, in milliseconds (default: the host's `retry:`, else 3 000; never
   * less than a second, whatever the host says); doubled while the streams fail or end without a
   * notification, up to 30 s, and back to the first once a stream delivers one or stays open 30 s.
   */
  reconnectDelayMs?: number;
  /** Called before each reconnect, with the id it resumes after and the wait. */
  onReconnect?: (info: { lastEventId: string | undefined; delayMs: number; cause: unknown }) => void;
}

/** What a stream needs from the client. */
export interface StreamContext {
  baseUrl: string;
  fetch: RequestFetch;
  sleep: Sleep;
  /** The clock in milliseconds (for `retry-after` dates). */
  now: () => number;
}

const MAX_RECONNECT_DELAY_MS = 30_000;
/** The shortest wait before a reconnect: a host (or a proxy) saying `retry: 0` must not make the client hammer it. */
const MIN_RECONNECT_DELAY_MS = 1_000;

/** Follows a stream; see the file's comment. */
export async function* followNotifications(context: StreamContext, options: StreamOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
  const path = options.queryId === undefined ? '/v2/auto/queries/stream' : `/v2/auto/queries/${encodeURIComponent(options.queryId)}/stream`;
  const url = new URL(`${context.baseUrl.replace(/\/+$/, '')}${path}`);
  let lastEventId = options.lastEventId;
  let hostRetryMs: number | undefined;
  let failures = 0;
  const outer = options.signal;
  while (!outer?.aborted) {
    const connection = new AbortController();
    const abort = () => connection.abort(outer?.reason);
    outer?.addEventListener('abort', abort, { once: true });
    let cause: unknown;
    /** When the stream opened (its response came), on the context's clock. */
    let openedAt: number | undefined;
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      const response = await context.fetch(new Request(url, { headers, signal: connection.signal }));
      if (response.status === 204) return;
      if (!response.ok) {
        const body: unknown = await response.json().catch(() => undefined);
        throw new EqlApiError(response.status, body, retryAfterSeconds(response, context.now()));
      }
      if (response.body === null) throw new EqlClientError('stream_closed', 'the host answered the stream without a body');
      openedAt = context.now();
      const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream({ onRetry: (ms) => (hostRetryMs = ms) }));
      for await (const message of events) {
        const event = toEvent(message.event ?? 'message', message.id, message.data);
        // Progress: the backoff starts again. A stream that only says `ready` and ends is a failure.
        if (event.event === 'notification:new') {
          lastEventId = event.id;
          failures = 0;
        }
        yield event;
        if (event.event === 'end') return;
      }
      cause = new EqlClientError('stream_closed', 'the host closed the stream');
    } catch (error) {
      if (outer?.aborted) return;
      // A refusal (4xx) is final; a host restarting behind a proxy (5xx), a dropped connection or a closed stream is not.
      if (error instanceof EqlApiError && error.status < 500) throw error;
      if (error instanceof EqlClientError && error.code !== 'stream_closed') throw error;
      cause = error;
    } finally {
      outer?.removeEventListener('abort', abort);
      connection.abort();
    }
    if (options.reconnect === false) throw cause instanceof Error ? cause : new EqlClientError('stream_closed', String(cause));
    // A stream that stayed open long was no failure either, even without a notification.
    if (openedAt !== undefined && context.now() - openedAt >= MAX_RECONNECT_DELAY_MS) failures = 0;
    const firstDelayMs = Math.max(MIN_RECONNECT_DELAY_MS, options.reconnectDelayMs ?? hostRetryMs ?? 3_000);
    const delayMs = Math.min(MAX_RECONNECT_DELAY_MS, firstDelayMs * 2 ** Math.min(failures, 10));
    failures += 1;
    options.onReconnect?.({ lastEventId, delayMs, cause });
    try {
      await context.sleep(delayMs, outer);
    } catch {
      return;
    }
  }
}

function toEvent(name: string, id: string | undefined, text: string): StreamEvent {
  let data: unknown = text;
  try {
    data = JSON.parse(text);
  } catch {
    // Not JSON: passed on as text.
  }
  switch (name) {
    case 'notification:new':
      return { event: name, id: id ?? String((data as Partial<Notification>).id ?? ''), data: data as Notification };
    case 'ready':
    case 'notification:count':
    case 'query:state':
    case 'end':
      return { event: name, data } as StreamEvent;
    default:
      return id === undefined ? { event: 'unknown', name, data } : { event: 'unknown', name, id, data };
  }
}
