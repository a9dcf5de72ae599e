import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransportError, type HttpRequest } from '@eql/core';
import { BlockedAddressError, UndiciHttpTransport, publicOnlyLookup } from '../src/index.js';
import { closedPort, startServer, type LocalServer } from './support/local-server.js';

const SECRET = 'Bearer sk-live-DO-NOT-LEAK-7f3a';

function post(url: string, overrides: Partial<HttpRequest> = {}): HttpRequest {
  return {
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: SECRET },
    body: '{"hello":"world"}',
    timeoutMs: 2000,
    ...overrides,
  };
}

/** The rejection of a promise, or a failure when it resolved. */
async function rejection(promise: Promise<unknown>): Promise<Error & { failure?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { failure?: string };
  }
  throw new Error('expected a rejection');
}

describe('UndiciHttpTransport against local servers (allowPrivate)', () => {
  let server: LocalServer;
  const transport = new UndiciHttpTransport({ allowPrivate: true, maxResponseBytes: 1024, userAgent: 'eql-test/1' });
  const seen: Array<{ headers: Record<string, unknown>; body: string }> = [];

  beforeAll(async () => {
    server = await startServer((request, response, body) => {
      seen.push({ headers: { ...request.headers }, body });
      switch (request.url) {
        case '/ok':
          response.writeHead(200, { 'content-type': 'text/plain', 'x-reply': 'yes' }).end(`got ${body}`);
          return;
        case '/fail':
          response.writeHead(500).end('boom');
          return;
        case '/redirect':
          response.writeHead(302, { location: '/ok' }).end();
          return;
        case '/hang':
          return; // never answers
        case '/slow-body':
          response.writeHead(200);
          response.write('partial');
          return; // never ends the body
        case '/big':
          response.writeHead(200, { 'content-type': 'text/plain' });
          response.end('x'.repeat(1024 * 1024));
          return;
        default:
          response.writeHead(404).end();
      }
    });
  });
  afterAll(async () => {
    await transport.close();
    await server.close();
  });

  it('posts the body and headers and returns a 200 with its body and headers', async () => {
    const response = await transport.send(post(`${server.url}/ok`));
    expect(response.status).toBe(200);
    expect(response.body).toBe('got {"hello":"world"}');
    expect(response.headers['x-reply']).toBe('yes');
    const last = seen.at(-1);
    expect(last?.body).toBe('{"hello":"world"}');
    expect(last?.headers['user-agent']).toBe('eql-test/1');
    expect(last?.headers.authorization).toBe(SECRET);
  });

  it('opens at most connectionsPerOrigin connections to one origin: a burst queues and reuses them, every request answered', async () => {
    const sockets = new Set<unknown>();
    let open = 0;
    let most = 0;
    const burstServer = await startServer((request, response) => {
      sockets.add(request.socket);
      open += 1;
      most = Math.max(most, open);
      // Answered a turn later, so that requests overlap.
      setImmediate(() => {
        open -= 1;
        response.writeHead(200).end('ok');
      });
    });
    const bounded = new UndiciHttpTransport({ allowPrivate: true, connectionsPerOrigin: 4 });
    try {
      const responses = await Promise.all(Array.from({ length: 200 }, () => bounded.send(post(`${burstServer.url}/ok`, { timeoutMs: 60_000 }))));
      expect(responses.every((response) => response.status === 200)).toBe(true);
      expect(sockets.size).toBeLessThanOrEqual(4);
      expect(most).toBeLessThanOrEqual(4);
    } finally {
      await bounded.close();
      await burstServer.close();
    }
  });

  it('keeps a user-agent the request sets', async () => {
    await transport.send(post(`${server.url}/ok`, { headers: { 'User-Agent': 'mine/2' } }));
    expect(seen.at(-1)?.headers['user-agent']).toBe('mine/2');
  });

  it('returns a 500 as a response', async () => {
    const response = await transport.send(post(`${server.url}/fail`));
    expect(response).toMatchObject({ status: 500, body: 'boom' });
  });

  it('returns a 302 without following it', async () => {
    const before = server.requests.length;
    const response = await transport.send(post(`${server.url}/redirect`));
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('/ok');
    expect(server.requests.slice(before)).toEqual(['POST /redirect']);
  });

  it('times out on a server that never answers', async () => {
    const started = Date.now();
    const error = await rejection(transport.send(post(`${server.url}/hang`, { timeoutMs: 300 })));
    expect(error).toBeInstanceOf(TransportError);
    expect(error.failure).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.message).not.toContain('sk-live');
  });

  it('times out when the body never ends (the deadline covers the body too)', async () => {
    const error = await rejection(transport.send(post(`${server.url}/slow-body`, { timeoutMs: 300 })));
    expect(error.failure).toBe('timeout');
  });

  it('truncates an oversized body at maxResponseBytes', async () => {
    const response = await transport.send(post(`${server.url}/big`));
    expect(response.status).toBe(200);
    expect(response.body).toBe('x'.repeat(1024));
  });

  it('defaults the body limit to 64 KiB', async () => {
    const plain = new UndiciHttpTransport({ allowPrivate: true });
    try {
      const response = await plain.send(post(`${server.url}/big`));
      expect(response.body.length).toBe(64 * 1024);
    } finally {
      await plain.close();
    }
  });

  it('rejects a refused connection with network, without header values or the path in the message', async () => {
    const port = await closedPort();
    const error = await rejection(transport.send(post(`http://127.0.0.1:${port}/bot123:SECRET-TOKEN/send?key=abc`)));
    expect(error.name).toBe('TransportError');
    expect(error.failure).toBe('network');
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).not.toMatch(/sk-live|SECRET-TOKEN|key=abc/);
  });

  it('refuses schemes other than http and https', async () => {
    const error = await rejection(transport.send(post('file:///etc/passwd')));
    expect(error.failure).toBe('blocked-target');
  });
});

describe('UndiciHttpTransport SSRF protection (allowPrivate false)', () => {
  let server: LocalServer;
  const transport = new UndiciHttpTransport();

  beforeAll(async () => {
    server = await startServer((_request, response) => response.writeHead(200).end('should never be reached'));
  });
  afterAll(async () => {
    await transport.close();
    await server.close();
  });

  const blockedUrls = (port: number): string[] => [
    `http://127.0.0.1:${port}/hook`,
    `http://2130706433:${port}/hook`, // decimal form, the URL parser rewrites it to 127.0.0.1
    `http://127.1:${port}/hook`,
    `http://[::1]:${port}/hook`,
    `http://[::ffff:127.0.0.1]:${port}/hook`,
    `http://10.0.0.1:${port}/hook`,
    `http://192.168.1.10:${port}/hook`,
    `http://169.254.169.254/latest/meta-data`,
    `http://0.0.0.0:${port}/hook`,
  ];

  it('refuses loopback, private and special literal addresses without connecting', async () => {
    for (const url of blockedUrls(server.port)) {
      const error = await rejection(transport.send(post(url)));
      expect(error.failure, url).toBe('blocked-target');
      expect(error.message).not.toContain('sk-live');
    }
    expect(server.connections()).toBe(0);
  });

  it('refuses a name that resolves to 127.0.0.1 (localhost) at connect time, without connecting', async () => {
    const error = await rejection(transport.send(post(`http://localhost:${server.port}/hook`)));
    expect(error).toBeInstanceOf(TransportError);
    expect(error.failure).toBe('blocked-target');
    expect(error.message).toContain('localhost');
    expect(server.connections()).toBe(0);
  });

  it('refuses a public-looking name when any of its addresses is private (rebinding)', async () => {
    const resolving = new UndiciHttpTransport({
      resolver: () =>
        Promise.resolve([
          { address: '93.184.216.34', family: 4 },
          { address: '127.0.0.1', family: 4 },
        ]),
    });
    try {
      const error = await rejection(resolving.send(post(`http://hooks.example.com:${server.port}/hook`)));
      expect(error.failure).toBe('blocked-target');
      expect(server.connections()).toBe(0);
    } finally {
      await resolving.close();
    }
  });

  it('checks at every connection: a name that turns private after a public answer is refused', async () => {
    const answers = ['198.51.100.7', '127.0.0.1']; // first a routable-looking answer, then the rebind
    const seen: string[] = [];
    const resolving = new UndiciHttpTransport({
      resolver: (hostname) => {
        seen.push(hostname);
        return Promise.resolve([{ address: answers.shift() ?? '127.0.0.1', family: 4 }]);
      },
    });
    try {
      // TEST-NET-2 is "reserved", so even the first answer is refused: the check runs on what resolves.
      const first = await rejection(resolving.send(post(`http://rebind.example.com:${server.port}/hook`, { timeoutMs: 300 })));
      const second = await rejection(resolving.send(post(`http://rebind.example.com:${server.port}/hook`, { timeoutMs: 300 })));
      expect([first.failure, second.failure]).toEqual(['blocked-target', 'blocked-target']);
      expect(seen).toEqual(['rebind.example.com', 'rebind.example.com']);
      expect(server.connections()).toBe(0);
    } finally {
      await resolving.close();
    }
  });

  it('passes a name whose addresses are all public, in the form net.connect asked for', async () => {
    const lookup = publicOnlyLookup(() =>
      Promise.resolve([
        { address: '8.8.8.8', family: 4 },
        { address: '2001:4860:4860::8888', family: 6 },
      ]),
    );
    const ask = (all: boolean): Promise<unknown[]> =>
      new Promise((resolve) => lookup('dns.example.com', { all }, (...args) => resolve(args)));
    expect(await ask(true)).toEqual([null, [{ address: '8.8.8.8', family: 4 }, { address: '2001:4860:4860::8888', family: 6 }]]);
    expect(await ask(false)).toEqual([null, '8.8.8.8', 4]);
    const refused = publicOnlyLookup(() => Promise.resolve([{ address: '8.8.8.8', family: 4 }, { address: 'fd00::1', family: 6 }]));
    const [error] = await new Promise<unknown[]>((resolve) => refused('mixed.example.com', { all: true }, (...args) => resolve(args)));
    expect(error).toBeInstanceOf(BlockedAddressError);
  });

  it('reports an unresolvable name as network', async () => {
    const resolving = new UndiciHttpTransport({
      resolver: () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' })),
    });
    try {
      const error = await rejection(resolving.send(post('http://nowhere.example/hook')));
      expect(error.failure).toBe('network');
      expect(error.message).toContain('ENOTFOUND');
    } finally {
      await resolving.close();
    }
  });
});
