import { Agent, request as undiciRequest } from 'undici';
import { addressRange, TransportError, type HttpRequest, type HttpResponse, type HttpTransport } from '@eql/core';
import { BlockedAddressError, publicOnlyLookup, type Resolver } from './public-lookup.js';
import { readCapped } from './read-capped.js';

/** Options of an {@link UndiciHttpTransport}: private targets, user agent, response size cap and resolver. */
export interface UndiciHttpTransportOptions {
  /** Allow loopback and private targets (tests, self-hosted setups). Default false. */
  allowPrivate?: boolean;
  /** Sent as `user-agent` unless the request sets its own. */
  userAgent?: string;
  /** Response bodies are cut after this many bytes. Default 64 KiB. */
  maxResponseBytes?: number;
  /** How names are resolved before the public-address check; the system resolver by default. */
  resolver?: Resolver;
  /**
   * Most connections open at once to one origin (default {@link DEFAULT_CONNECTIONS_PER_ORIGIN}): a storm
   * of webhooks to one receiver queues here and reuses kept-alive connections, rather than opening a
   * socket per request. A request's time in the queue counts against its timeout.
   */
  connectionsPerOrigin?: number;
}

/** Default of {@link UndiciHttpTransportOptions.connectionsPerOrigin}. */
export const DEFAULT_CONNECTIONS_PER_ORIGIN = 64;

/** Where a response body is cut when `maxResponseBytes` is not given: 64 KiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
const DEFAULT_USER_AGENT = 'eql/0.1 (+webhook)';

/**
 * The Node {@link HttpTransport}: one POST through undici, no redirects followed (a 3xx is returned
 * as a response), the whole exchange bounded by `request.timeoutMs`, the body cut at
 * `maxResponseBytes`. Unless `allowPrivate`, it refuses at send time a literal IP host that is not
 * public, and resolves names through {@link publicOnlyLookup} so that a name with any non-public
 * address is refused at connect time, before a socket opens (this also defeats DNS rebinding).
 *
 * Failures reject with a {@link TransportError}. Messages name the host only: never header values,
 * the path or the query string, which may carry secrets.
 */
export class UndiciHttpTransport implements HttpTransport {
  private readonly agent: Agent;
  private readonly allowPrivate: boolean;
  private readonly userAgent: string;
  private readonly maxResponseBytes: number;

  constructor(options: UndiciHttpTransportOptions = {}) {
    this.allowPrivate = options.allowPrivate ?? false;
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const connections = options.connectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN;
    this.agent = new Agent(this.allowPrivate ? { connections } : { connections, connect: { lookup: publicOnlyLookup(options.resolver) } });
  }

  async send(request: HttpRequest): Promise<HttpResponse> {
    const url = this.targetOf(request.url);
    const host = url.host;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), request.timeoutMs);
    try {
      const response = await undiciRequest(url, {
        dispatcher: this.agent,
        method: request.method,
        headers: this.headersOf(request.headers),
        body: request.body,
        signal: controller.signal,
        headersTimeout: request.timeoutMs,
        bodyTimeout: request.timeoutMs,
      });
      const { text } = await readCapped(response.body, this.maxResponseBytes);
      return { status: response.statusCode, headers: flattenHeaders(response.headers), body: text };
    } catch (error) {
      throw failureOf(error, host, request.timeoutMs, controller.signal.aborted);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes pooled connections; pending requests finish first. */
  close(): Promise<void> {
    return this.agent.close();
  }

  /** Parses the URL and applies the literal-address rule (names are checked when they resolve). */
  private targetOf(text: string): URL {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new TransportError('blocked-target', 'the target is not an absolute URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TransportError('blocked-target', `the target must use http or https, not ${url.protocol.replace(/:$/, '')}`);
    }
    if (!this.allowPrivate) {
      const range = addressRange(url.hostname);
      if (range !== undefined && range !== 'unicast') {
        throw new TransportError('blocked-target', `${url.hostname} is a ${range} address; requests go only to public hosts`);
      }
    }
    return url;
  }

  private headersOf(headers: Record<string, string>): Record<string, string> {
    const hasAgent = Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent');
    return hasAgent ? { ...headers } : { ...headers, 'user-agent': this.userAgent };
  }
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/** Turns whatever undici or the socket threw into a TransportError, keeping only safe details. */
function failureOf(error: unknown, host: string, timeoutMs: number, aborted: boolean): TransportError {
  if (error instanceof TransportError) return error;
  const chain = causeChain(error);
  if (chain.some((link) => link instanceof BlockedAddressError)) {
    return new TransportError('blocked-target', `${host} resolves to a non-public address; requests go only to public hosts`);
  }
  const codes = chain.map(codeOf).filter((code): code is string => code !== undefined);
  if (aborted || codes.some((code) => TIMEOUT_CODES.has(code))) {
    return new TransportError('timeout', `no full response from ${host} within ${timeoutMs} ms`);
  }
  const code = codes[0];
  return new TransportError('network', `could not reach ${host}${code ? `: ${code}` : ''}`);
}

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let link: unknown = error;
  while (link !== undefined && link !== null && chain.length < 8 && !chain.includes(link)) {
    chain.push(link);
    if (link instanceof AggregateError) chain.push(...(link.errors as unknown[]).slice(0, 4));
    link = link instanceof Error ? link.cause : undefined;
  }
  return chain;
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
