import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventSource } from 'eventsource';
import { parseRecording, PushSource } from '@eql/core';
import { buildServer, createApiKey, type Host, type SseHubOptions } from '../../src/index.js';

/** A recording of one price, so that building a host does not parse the 3-day demo feed. */
const TINY_RECORDING = parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n');

export interface TestHost {
  host: Host;
  push: PushSource;
  dataDir: string;
  /** `http://127.0.0.1:PORT` */
  base: string;
  port: number;
  /** Creates a pro key of this host. */
  key(name?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * A host listening on a real socket (127.0.0.1), fed by a PushSource so queries fire on demand.
 * `dataDir` reuses a data directory (a restart); `port` listens on a given port.
 */
export async function startHost(options: { dataDir?: string; port?: number; sse?: SseHubOptions; push?: PushSource; beforeListen?: (push: PushSource) => void | Promise<void> } = {}): Promise<TestHost> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'eql-server-test-')));
  const push = options.push ?? new PushSource();
  const host = await buildServer({
    config: { dataDir, marketSeed: false },
    logger: false,
    engine: { sources: [push], recording: TINY_RECORDING },
    sse: { retryMs: 200, ...options.sse },
  });
  await options.beforeListen?.(push);
  await host.app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const port = (host.app.server.address() as AddressInfo).port;
  let closed = false;
  return {
    host,
    push,
    dataDir,
    base: `http://127.0.0.1:${port}`,
    port,
    key: async (name = 'test') => (await createApiKey(host.context.store, host.context.box, { name, plan: 'pro' })).key,
    close: async () => {
      if (closed) return;
      closed = true;
      await host.close();
    },
  };
}

/** A TCP port free on 127.0.0.1 now (for a child process to listen on). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** A notify query on a price threshold: `steps` notify actions, each with `message`. */
export function notifyQuery(symbol: string, threshold: number, options: { steps?: number; message?: string; title?: string } = {}): Record<string, unknown> {
  const steps = options.steps ?? 1;
  return {
    title: options.title ?? `${symbol} above ${threshold}`,
    query: {
      conditions: { AND: [{ source: 'price', method: 'current', args: { symbol }, operator: '>', value: threshold }] },
      actions: Array.from({ length: steps }, (_, index) => ({ stepId: `notify-${index + 1}`, type: 'notify', params: { message: options.message ?? `${symbol} is above ${threshold}` } })),
      expiresIn: '24h',
    },
  };
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

export async function call(base: string, method: string, path: string, key: string | undefined, body?: unknown, headers: Record<string, string> = {}): Promise<JsonResponse> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(key === undefined ? {} : { 'x-svc-api-key': key }), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** Validate, then create (spec 3): the new query's id. */
export async function createQuery(base: string, key: string, body: Record<string, unknown>): Promise<string> {
  const validated = await call(base, 'POST', '/v2/auto/queries/validate', key, body);
  if (validated.status !== 200 || (validated.body as { valid?: boolean }).valid !== true) throw new Error(`validate answered ${validated.status}: ${JSON.stringify(validated.body)}`);
  const created = await call(base, 'POST', '/v2/auto/queries', key, body);
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
  return (created.body as { queryId: string }).queryId;
}

export function pushPrice(push: PushSource, symbol: string, price: number): void {
  push.push({ at: Date.now(), source: 'price', symbol, price });
}

/**
 * Waits until `check` holds (polling), or fails with `what`. The deadline is a safety net for a check that
 * never holds (the message names what did not happen), not a budget: a loaded machine must not be taken
 * for a fault, and the test's own timeout bounds the wait too.
 */
export async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------ SSE

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comments: string[];
}

/** Splits SSE text into complete blocks (separated by a blank line); returns them and the unfinished rest. */
export function parseSse(text: string): { frames: SseFrame[]; rest: string } {
  const frames: SseFrame[] = [];
  const blocks = text.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    const frame: SseFrame = { comments: [] };
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        frame.comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id' || field === 'event' || field === 'retry') frame[field] = value;
      else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
    }
    frames.push(frame);
  }
  return { frames, rest };
}

/** An SSE stream read with node:http, frame by frame. */
export class RawStream {
  readonly frames: SseFrame[] = [];
  text = '';
  ended = false;
  private rest = '';
  /** Re-checked at every chunk and at the end (see `waitFor`). */
  private readonly waiters = new Set<() => void>();

  private constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    private readonly abort: () => void,
  ) {}

  static open(url: string, headers: Record<string, string>): Promise<RawStream> {
    return new Promise((resolve, reject) => {
      const request = httpRequest(url, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
        const stream = new RawStream(response.statusCode ?? 0, response.headers, () => request.destroy());
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => stream.take(chunk));
        response.on('end', () => stream.end());
        response.on('close', () => stream.end());
        response.on('error', () => stream.end());
        resolve(stream);
      });
      request.on('error', reject);
      request.end();
    });
  }

  /** Frames carrying an event (not keep-alive comments). */
  get events(): SseFrame[] {
    return this.frames.filter((frame) => frame.event !== undefined);
  }

  named(event: string): SseFrame[] {
    return this.frames.filter((frame) => frame.event === event);
  }

  close(): void {
    this.abort();
  }

  /**
   * Resolves as soon as `check` holds, judged now and again at every chunk received: an event wait, with
   * no deadline of its own (the test's timeout bounds it). Rejects if the stream ends before.
   */
  waitFor(check: () => boolean, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const judge = () => {
        if (check()) {
          this.waiters.delete(judge);
          resolve();
        } else if (this.ended) {
          this.waiters.delete(judge);
          reject(new Error(`the stream ended before ${what}`));
        }
      };
      this.waiters.add(judge);
      judge();
    });
  }

  /** Resolves when the server ends the stream (or it breaks). */
  whenEnded(): Promise<void> {
    return this.waitFor(() => this.ended, 'its end').catch(() => undefined);
  }

  private end(): void {
    this.ended = true;
    for (const judge of [...this.waiters]) judge();
  }

  private take(chunk: string): void {
    this.text += chunk;
    const { frames, rest } = parseSse(this.rest + chunk);
    this.rest = rest;
    this.frames.push(...frames);
    for (const judge of [...this.waiters]) judge();
  }
}

export interface EsEvent {
  type: string;
  id: string;
  data: unknown;
}

/** An `eventsource` (WHATWG) client sending the key through its fetch option; records what it sees. */
export class EsClient {
  readonly es: EventSource;
  readonly events: EsEvent[] = [];
  opens = 0;
  readonly errors: Array<{ code: number | undefined; message: string | undefined }> = [];

  constructor(url: string, key: string, headers: Record<string, string> = {}) {
    this.es = new EventSource(url, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, ...headers, 'x-svc-api-key': key } }),
    });
    for (const type of ['ready', 'notification:new', 'notification:count', 'end']) {
      this.es.addEventListener(type, (event: MessageEvent) => {
        this.events.push({ type, id: event.lastEventId, data: JSON.parse(String(event.data)) as unknown });
      });
    }
    this.es.addEventListener('open', () => (this.opens += 1));
    this.es.addEventListener('error', (event) => this.errors.push({ code: event.code, message: event.message }));
  }

  named(type: string): EsEvent[] {
    return this.events.filter((event) => event.type === type);
  }

  /** Payloads of the notifications received. */
  get notifications(): Array<{ id: number; data: { queryId: string } } & Record<string, unknown>> {
    return this.named('notification:new').map((event) => event.data as { id: number; data: { queryId: string } } & Record<string, unknown>);
  }

  close(): void {
    this.es.close();
  }
}
