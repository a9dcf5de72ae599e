import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEqlClient, EqlClientError } from '../src/index.js';

// Issue 45, point 9: the client never follows a redirect, so its API key and signature cannot reach
// another origin. Two real HTTP servers on loopback (two ports: two origins): the first answers every
// request with a redirect to the second (or to itself), the second records what reaches it.

const API_KEY = 'eql_redirect_test_key_0123456789abcdef';
const HMAC_SECRET = 'redirect-test-hmac-secret-0123456789';
const QUERY_ID = '00000000-0000-4000-8000-000000000001';

let redirecting: Server;
let elsewhere: Server;
let redirectingBase: string;
let elsewhereBase: string;
/** Where the first server sends its callers (set per test). */
let target: (path: string) => string;
let status = 307;
const reachedRedirecting: IncomingHttpHeaders[] = [];
const reachedElsewhere: IncomingHttpHeaders[] = [];

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  redirecting = createServer((request, response) => {
    reachedRedirecting.push(request.headers);
    request.resume();
    response.writeHead(status, { location: target(request.url ?? '/') }).end();
  });
  elsewhere = createServer((request, response) => {
    reachedElsewhere.push(request.headers);
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
  });
  redirectingBase = await listen(redirecting);
  elsewhereBase = await listen(elsewhere);
});

afterAll(async () => {
  redirecting.closeAllConnections();
  elsewhere.closeAllConnections();
  await Promise.all([new Promise((resolve) => redirecting.close(resolve)), new Promise((resolve) => elsewhere.close(resolve))]);
});

/** What a call threw (it must throw). */
async function failure(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('the call did not fail');
}

describe('redirects', () => {
  it('a redirect to another origin is refused, whatever its status: the other origin never sees the key, the signature nor the agent secret', async () => {
    target = (path) => `${elsewhereBase}${path}?token=hidden`;
    const eql = createEqlClient({ baseUrl: redirectingBase, apiKey: API_KEY, hmacSecret: HMAC_SECRET, agentSecret: 'redirect-test-agent-secret' });
    for (const code of [301, 302, 303, 307, 308]) {
      status = code;
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['ping', () => eql.ping()],
        ['keyStatus', () => eql.keyStatus()],
        ['cancelQuery (signed)', () => eql.cancelQuery(QUERY_ID)],
        ['notifications', () => eql.notifications().next()],
        ['paid.getQuery (agent secret)', () => eql.paid.getQuery(QUERY_ID)],
      ];
      for (const [name, call] of calls) {
        const error = await failure(call());
        expect(error, `${code} ${name}`).toBeInstanceOf(EqlClientError);
        expect((error as EqlClientError).code).toBe('redirect_refused');
        // Where it was sent, to fix the base URL; not the query string a redirect may carry.
        expect((error as EqlClientError).message).toContain(`to ${elsewhereBase}/`);
        expect((error as EqlClientError).message).not.toContain('hidden');
      }
    }
    // The first origin had the credentials (the client's own host); the second got nothing at all.
    expect(reachedRedirecting.some((headers) => headers['x-svc-api-key'] === API_KEY && typeof headers['x-svc-signature'] === 'string')).toBe(true);
    expect(reachedElsewhere).toEqual([]);
  });

  it('a redirect within the origin is refused too (the base URL is what needs fixing)', async () => {
    status = 308;
    target = (path) => `${redirectingBase}/moved${path}`;
    const before = reachedRedirecting.length;
    const eql = createEqlClient({ baseUrl: redirectingBase, apiKey: API_KEY });
    const error = await failure(eql.ping());
    expect(error).toBeInstanceOf(EqlClientError);
    expect((error as EqlClientError).code).toBe('redirect_refused');
    expect((error as EqlClientError).message).toContain(`${redirectingBase}/moved/v2/ping`);
    // Asked once, never followed.
    expect(reachedRedirecting.length - before).toBe(1);
  });
});
