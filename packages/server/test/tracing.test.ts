import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killChildren, serveChild } from './support/child-host.js';
import { removeDir } from './support/harness.js';
import { startTracing, tracesEndpoint } from '../src/observability/tracing.js';
import { call, eventually, json, testHost, type TestHost } from './support/host.js';

// OpenTelemetry traces (docs/operations.md, "Traces"): off unless OTEL_EXPORTER_OTLP_ENDPOINT is set; then
// a request is a server span (a child of the caller's traceparent), and a tick that fires a query is a trace
// tick → trigger → step → webhook request, exported over OTLP/HTTP to a receiver on loopback, the webhook
// carrying the trace on. No attribute holds a secret of the query.

const servers: Server[] = [];
const dirs: string[] = [];
let host: TestHost | undefined;
afterAll(async () => {
  killChildren();
  for (const dir of dirs) await removeDir(dir);
  await host?.close();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

/** An HTTP server on loopback that answers 200 and keeps each request's path, headers and body. */
async function receiver(): Promise<{ url: string; requests: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> }> {
  const requests: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status?: { code?: number };
}

/** The spans of OTLP/HTTP JSON export requests, their attributes as plain values. */
function spansOf(bodies: string[]): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  for (const body of bodies) {
    const parsed = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Omit<OtlpSpan, 'attributes'> & { attributes?: Array<{ key: string; value: Record<string, unknown> }> }> }> }> };
    for (const resource of parsed.resourceSpans) {
      for (const scope of resource.scopeSpans) {
        for (const span of scope.spans) {
          const attributes: Record<string, unknown> = {};
          for (const { key, value } of span.attributes ?? []) attributes[key] = Object.values(value)[0];
          spans.push({ ...span, attributes });
        }
      }
    }
  }
  return spans;
}

describe('traces', () => {
  it('are off unless an OTLP endpoint is set (and OTEL_SDK_DISABLED is not true); the traces endpoint follows the OTLP convention', async () => {
    expect(await startTracing({}, 'n')).toBeUndefined();
    expect(await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }, 'n')).toBeUndefined();
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe('http://collector:4318/v1/traces');
    expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/in' })).toBe('https://traces.example/in');
  });

  it('export requests, and a tick → trigger → step → webhook call as one trace, to a local OTLP receiver', { timeout: 60_000 }, async () => {
    const collector = await receiver();
    const hooks = await receiver();
    const tracing = await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'eql-test' }, 'trace-node');
    expect(tracing).toBeDefined();
    host = await testHost({ ...(tracing ? { tracing } : {}), config: { allowPrivateWebhooks: true } });
    const key = await host.newKey();
    const canary = 'CANARYwebhookToken0123456789';
    const body = {
      title: 'traced',
      query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'hook', type: 'webhook', params: { url: `${hooks.url}/in/${canary}?token=${canary}` } }] },
    };
    expect(json(await call(host.app, { method: 'POST', url: '/v2/auto/queries/validate', key, body })).valid).toBe(true);
    const created = await call(host.app, { method: 'POST', url: '/v2/auto/queries', key, body });
    expect(created.statusCode).toBe(201);
    const queryId = json(created).queryId as string;
    // A caller's trace context: the request's span is its child.
    const callerTrace = '0af7651916cd43dd8448eb211c80319c';
    const callerSpan = 'b7ad6b7169203331';
    await host.app.inject({ method: 'GET', url: `/v2/auto/queries/${queryId}`, headers: { 'x-svc-api-key': key.key, traceparent: `00-${callerTrace}-${callerSpan}-01` } });
    host.push.push({ source: 'price', symbol: 'BTC', at: Date.now(), price: 2 });
    await eventually(() => (hooks.requests.length > 0 ? true : undefined));
    await eventually(() => (host?.store.executionsOfQuery(queryId)[0]?.status === 'succeeded' ? true : undefined));
    await host.close();
    host = undefined;

    const exports = collector.requests.filter((request) => request.path === '/v1/traces');
    expect(exports.length).toBeGreaterThan(0);
    expect(exports[0]?.headers['content-type']).toMatch(/application\/json/);
    const bodies = exports.map((request) => request.body);
    expect(bodies.join('')).toContain('"eql-test"');
    const spans = spansOf(bodies);
    const named = (name: string) => spans.filter((span) => span.name === name);

    const create = named('POST /v2/auto/queries')[0];
    expect(create?.kind).toBe(2); // SERVER
    expect(create?.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.route': '/v2/auto/queries', 'http.response.status_code': 201 });
    const poll = named('GET /v2/auto/queries/:queryId')[0];
    expect(poll).toMatchObject({ traceId: callerTrace, parentSpanId: callerSpan });

    const trigger = named('eql.trigger').find((span) => span.attributes['eql.query.id'] === queryId);
    expect(trigger?.attributes).toMatchObject({ 'eql.trigger.index': 1, 'eql.outcome': 'succeeded' });
    const tick = spans.find((span) => span.spanId === trigger?.parentSpanId);
    expect(tick?.name).toBe('eql.tick');
    expect(tick?.parentSpanId ?? '').toBe('');
    const step = named('eql.step webhook').find((span) => span.parentSpanId === trigger?.spanId);
    expect(step?.attributes).toMatchObject({ 'eql.step.id': 'hook', 'eql.action.type': 'webhook', 'eql.idempotency_key': `${queryId}:1:hook`, 'eql.outcome': 'succeeded' });
    const send = spans.find((span) => span.parentSpanId === step?.spanId);
    expect(send).toMatchObject({ name: 'POST', kind: 3 /* CLIENT */, traceId: tick?.traceId });
    expect(send?.attributes).toMatchObject({ 'server.address': '127.0.0.1', 'http.response.status_code': 200 });
    // The receiver got the trace on: its traceparent names the client span.
    expect(hooks.requests[0]?.headers.traceparent).toBe(`00-${send?.traceId}-${send?.spanId}-01`);
    // No secret of the query in any span.
    expect(bodies.join('')).not.toContain(canary);
  });

  it('of a real `eql serve`, told by OTEL_EXPORTER_OTLP_ENDPOINT: its requests reach the collector, the last ones flushed at shutdown', { timeout: 60_000 }, async () => {
    const collector = await receiver();
    const dataDir = await mkdtemp(join(tmpdir(), 'eql-traces-'));
    dirs.push(dataDir);
    const child = await serveChild({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, EQL_PORT: '0', EQL_DATA_DIR: dataDir, EQL_MARKET_SEED: 'none', EQL_NODE_ID: 'traced-child' });
    expect(child.output()).toContain(`traces: OTLP to ${collector.url}`);
    const url = /listening on (\S+)/.exec(await child.line(/listening on/, 'listening'))?.[1] as string;
    expect((await fetch(`${url}/v2/ping`)).status).toBe(200);
    child.process.kill('SIGTERM');
    await child.exit;
    const bodies = collector.requests.filter((request) => request.path === '/v1/traces').map((request) => request.body);
    const health = spansOf(bodies).find((span) => span.name === 'GET /v2/ping');
    expect(health?.attributes).toMatchObject({ 'http.response.status_code': 200 });
    expect(bodies.join('')).toContain('"traced-child"');
  });
});
