import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

/**
 * Secrets in URLs. A URL is kept by proxies, browsers' histories and access logs, so API keys are
 * never taken from one (`?apiKey=`, `?api_key=`, `?x-svc-api-key=`, ... are a 400 that says to use the
 * header), and the request log writes URLs with the values of secret-looking parameters replaced.
 */

/** A parameter name compared without case, `-`, `_` or other punctuation: `api_key`, `API-Key` and `apikey` are one. */
const normalized = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Names of query parameters that would carry an API key: refused. */
const API_KEY_NAMES = new Set(['apikey', 'xsvcapikey', 'key']);

/** Names of query parameters whose values never reach the logs (the API key names, and other secrets). */
const SECRET_NAMES = new Set([
  ...API_KEY_NAMES,
  'secret',
  'hmacsecret',
  'token',
  'accesstoken',
  'password',
  'signature',
  'xsvcsignature',
  'agentsecret',
  'xsvcagentsecret',
  'authorization',
  'payment',
  'xpayment',
  'paymentsignature',
]);

/** A value shaped like a key this host issues (`eql_` and 40 letters and digits): redacted whatever its name. */
const ISSUED_KEY = /eql_[A-Za-z0-9]{16,}/;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** The query string's parameters as `[raw name, raw value]`, in order (a lone name has the value undefined). */
function parameters(url: string): { path: string; pairs: Array<[string, string | undefined]> } {
  const mark = url.indexOf('?');
  if (mark < 0) return { path: url, pairs: [] };
  const pairs = url
    .slice(mark + 1)
    .split('&')
    .map((part): [string, string | undefined] => {
      const equals = part.indexOf('=');
      return equals < 0 ? [part, undefined] : [part.slice(0, equals), part.slice(equals + 1)];
    });
  return { path: url.slice(0, mark), pairs };
}

/** The name of the first query parameter of a URL that would carry an API key, if any. */
export function apiKeyParameter(url: string): string | undefined {
  for (const [name] of parameters(url).pairs) {
    const plain = decoded(name);
    if (API_KEY_NAMES.has(normalized(plain))) return plain;
  }
  return undefined;
}

/** A URL for the logs: the values of secret-looking parameters, and anything shaped like an issued key, replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const { path, pairs } = parameters(url);
  const safePath = ISSUED_KEY.test(decoded(path)) ? '[redacted path]' : path;
  if (pairs.length === 0) return safePath;
  const query = pairs.map(([name, value]) => {
    const plainName = decoded(name);
    if (ISSUED_KEY.test(plainName)) return '[redacted]';
    if (value === undefined) return name;
    if (SECRET_NAMES.has(normalized(plainName)) || ISSUED_KEY.test(decoded(value))) return `${name}=[redacted]`;
    return `${name}=${value}`;
  });
  return `${safePath}?${query.join('&')}`;
}

/** onRequest hook: 400 `api_key_in_url` for an API key sent as a query parameter, before anything else looks at the request. */
export function refuseApiKeyInUrl(request: FastifyRequest): void {
  if (!request.url.includes('?')) return;
  const name = apiKeyParameter(request.url);
  if (name === undefined) return;
  throw new ApiError(
    'api_key_in_url',
    `an API key is never taken from the URL (query parameter "${name}"), where proxies and logs keep it: send it in the x-svc-api-key header. A key that was sent in a URL should be treated as exposed`,
  );
}

/** Fastify's request serializer for the logs, with the URL redacted (see {@link redactUrl}). */
export function requestSerializer(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactUrl(request.url),
    version: request.headers['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
