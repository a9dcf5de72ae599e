import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parseRecording, PushSource } from '@eql/core';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer, configFromEnv, createApiKey, type Host } from '../src/index.js';
import type { HostActivity, QueryRunner } from '../src/host/query-runner.js';
import { HostMetrics } from '../src/observability/host-metrics.js';
import type { HostStore } from '../src/store/store.js';
import { removeDir } from './support/harness.js';

// GET /metrics scraped and parsed as Prometheus's text format: requests by route and status, triggers,
// executions by action and outcome (a webhook answering 410 among them), store call latency, the
// engine's intake and the Node runtime; the token and the port of their own; and the log of every
// execution's outcome, with no secret in any line.

const TINY_RECORDING = parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n');
const dirs: string[] = [];
const hosts: Host[] = [];
const servers: Server[] = [];
afterAll(async () => {
  for (const host of hosts) await host.close();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  for (const dir of dirs) await removeDir(dir);
});

/** One sample of a scrape: its metric name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text exposition format: samples, and the HELP and TYPE of each metric family. */
function parseScrape(text: string): { samples: Sample[]; help: Map<string, string>; type: Map<string, string> } {
  const samples: Sample[] = [];
  const help = new Map<string, string>();
  const type = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (meta) {
      (meta[1] === 'HELP' ? help : type).set(meta[2] as string, meta[3] as string);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key as string] = value as string;
    samples.push({ name: sample[1] as string, labels, value: Number(sample[3]) });
  }
  return { samples, help, type };
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined =>
  samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted))?.value;

async function newHost(config: Record<string, unknown> = {}, logs?: string[]): Promise<{ host: Host; push: PushSource }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'eql-metrics-'));
  dirs.push(dataDir);
  const push = new PushSource();
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs?.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const host = await buildServer({
    config: { dataDir, marketSeed: false, allowPrivateWebhooks: true, ...config },
    logger: logs ? { level: 'info', stream } : false,
    engine: { sources: [push], recording: TINY_RECORDING },
  });
  hosts.push(host);
  return { host, push };
}

/** Resolves at the first activity of the host that `matches`. */
function activity(host: Host, matches: (activity: HostActivity) => boolean): Promise<HostActivity> {
  return new Promise((resolve) => {
    const stop = host.context.runner.onActivity((seen) => {
      if (!matches(seen)) return;
      stop();
      resolve(seen);
    });
  });
}

describe('GET /metrics', () => {
  it('counts requests, triggers and executions, times store calls, and reads the engine and the runtime', async () => {
    const receiver = createServer((_request, response) => response.writeHead(410).end('gone'));
    servers.push(receiver);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook?token=canary-url-token-4242`;
    const logs: string[] = [];
    const { host, push } = await newHost({}, logs);
    const key = await createApiKey(host.context.store, host.context.box, { name: 'metrics', plan: 'pro' });
    const headers = { 'x-svc-api-key': key.key };
    const body = {
      title: 'metrics',
      query: {
        conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100 }] },
        actions: [
          { stepId: 'tell', type: 'notify', params: { message: 'BTC above 100' } },
          { stepId: 'hook', type: 'webhook', params: { url: hookUrl } },
        ],
        expiresIn: '1h',
      },
    };
    expect((await host.app.inject({ method: 'POST', url: '/v2/auto/queries/validate', headers, payload: body })).statusCode).toBe(200);
    const created = await host.app.inject({ method: 'POST', url: '/v2/auto/queries', headers, payload: body });
    expect(created.statusCode).toBe(201);
    const queryId = created.json<{ queryId: string }>().queryId;
    expect((await host.app.inject({ method: 'GET', url: '/v2/auto/queries/nope', headers })).statusCode).toBe(404);
    const failedHook = activity(host, (seen) => seen.type === 'execution' && seen.execution.stepId === 'hook');
    push.push({ at: Date.now(), source: 'price', symbol: 'BTC', price: 90 });
    push.push({ at: Date.now(), source: 'price', symbol: 'BTC', price: 120 });
    await failedHook;

    const scrape = await host.app.inject({ method: 'GET', url: '/metrics' });
    expect(scrape.statusCode).toBe(200);
    expect(scrape.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const { samples, help, type } = parseScrape(scrape.body);
    // Requests by method, matched route (never the raw URL) and status.
    expect(value(samples, 'eql_http_requests_total', { method: 'POST', route: '/v2/auto/queries', status: '201' })).toBe(1);
    expect(value(samples, 'eql_http_requests_total', { method: 'GET', route: '/v2/auto/queries/:queryId', status: '404' })).toBe(1);
    expect(samples.some((sample) => sample.labels.route === '/v2/auto/queries/nope')).toBe(false);
    expect(value(samples, 'eql_http_request_duration_seconds_count', { method: 'POST', route: '/v2/auto/queries', status: '201' })).toBe(1);
    // The engine: a trigger, the notify step succeeded and the webhook's failure by its code.
    expect(value(samples, 'eql_triggers_total')).toBe(1);
    expect(value(samples, 'eql_executions_total', { action: 'notify', outcome: 'succeeded' })).toBe(1);
    expect(value(samples, 'eql_executions_total', { action: 'webhook', outcome: 'failed' })).toBe(1);
    expect(value(samples, 'eql_execution_failures_total', { action: 'webhook', code: 'WEBHOOK_GONE' })).toBe(1);
    expect(value(samples, 'eql_action_duration_seconds_count', { action: 'webhook', outcome: 'failed' })).toBe(1);
    expect(value(samples, 'eql_queries_active')).toBe(0);
    expect(value(samples, 'eql_observations_total', { source: 'price' })).toBe(2);
    expect(value(samples, 'eql_last_observation_age_seconds', { source: 'price' })).toBeGreaterThanOrEqual(0);
    expect(value(samples, 'eql_outbox_pending')).toBe(0);
    expect(value(samples, 'eql_sse_connections')).toBe(0);
    // Store calls by method, and the runtime's own (event loop delay among them).
    expect(value(samples, 'eql_store_call_duration_seconds_count', { method: 'insertQuery', outcome: 'ok' })).toBe(1);
    expect(value(samples, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    // No cluster, no bus: their gauges have no sample.
    expect(samples.filter((sample) => /^eql_(partition|bus|feed)/.test(sample.name))).toEqual([]);
    // Every family of the host says what it is: counters end in _total, durations are in seconds.
    const families = [...type.keys()].filter((name) => name.startsWith('eql_'));
    expect(families.sort()).toEqual([
      'eql_action_duration_seconds',
      'eql_execution_failures_total',
      'eql_executions_total',
      'eql_http_request_duration_seconds',
      'eql_http_requests_total',
      'eql_last_observation_age_seconds',
      'eql_observations_total',
      'eql_outbox_pending',
      'eql_outbox_pending_oldest_age_seconds',
      'eql_queries_active',
      'eql_retention_last_run_duration_seconds',
      'eql_retention_last_run_timestamp_seconds',
      'eql_retention_pruned_rows_total',
      'eql_sse_connections',
      'eql_store_call_duration_seconds',
      'eql_triggers_total',
    ]);
    for (const name of families) {
      expect(help.get(name), name).toMatch(/\S/);
      if (type.get(name) === 'counter') expect(name).toMatch(/_total$/);
      if (type.get(name) === 'histogram') expect(name).toMatch(/_seconds$/);
    }

    // The log: each outcome with its query and execution, the failure as a warning, and no secret anywhere.
    const records = logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    const outcomes = records.filter((record) => record.executionId !== undefined);
    expect(outcomes.map((record) => [record.level, record.queryId, record.stepId, record.action])).toEqual(
      expect.arrayContaining([
        [30, queryId, 'tell', 'notify'],
        [40, queryId, 'hook', 'webhook'],
      ]),
    );
    expect(outcomes.find((record) => record.stepId === 'hook')?.error).toMatchObject({ code: 'WEBHOOK_GONE' });
    for (const secret of [key.key, key.hmacSecret, 'canary-url-token-4242']) expect(logs.filter((line) => line.includes(secret))).toEqual([]);
  });

  it('asks for the bearer token when one is set, compared whole', async () => {
    const token = 'metrics-token-0123456789abcdef';
    const { host } = await newHost({ metrics: { enabled: true, token } });
    const without = await host.app.inject({ method: 'GET', url: '/metrics' });
    expect(without.statusCode).toBe(401);
    expect(without.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(without.json()).toMatchObject({ success: false, error: { code: 'metrics_token_required' } });
    expect((await host.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token.slice(0, -1)}` } })).statusCode).toBe(401);
    expect((await host.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}x` } })).statusCode).toBe(401);
    const scraped = await host.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    expect(scraped.statusCode).toBe(200);
    expect(scraped.body).toContain('# TYPE eql_triggers_total counter');
  });

  it('serves them on a port of their own when asked (and not on the API’s), or nowhere when off', async () => {
    const own = await newHost({ metrics: { enabled: true, port: 0, host: '127.0.0.1' } });
    expect((await own.host.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    const metricsApp = own.host.metricsApp;
    expect(metricsApp).toBeDefined();
    const address = await metricsApp!.listen({ host: '127.0.0.1', port: 0 });
    const answer = await fetch(`${address}/metrics`);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('eql_queries_active 0');
    const off = await newHost({ metrics: { enabled: false } });
    expect((await off.host.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    expect(off.host.metricsApp).toBeUndefined();
  });

  it('has every metric the Grafana dashboard of docs/ draws, a cluster’s included', async () => {
    const metrics = new HostMetrics();
    const readiness = { queries: 0, partitions: { owned: [0], count: 4 }, feedLeader: true, bus: { stream: 'S', connected: true, positions: { 0: { handled: 5, saved: 4, catchingUp: false, behind: 0, judged: 1, malformed: 0, reading: 'shared' as const } } } };
    const host = { readiness: () => readiness, stats: () => ({ activeQueries: 0, intake: new Map() }) } as unknown as QueryRunner;
    metrics.watch({ host, store: { outboxPending: () => ({ count: 0 }) } as unknown as HostStore, sseConnections: () => 0, now: Date.now });
    const families = (await metrics.registry.getMetricsAsJSON()).map((metric) => ({ name: metric.name, type: String(metric.type) }));
    const known = new Set(families.flatMap(({ name, type }) => (type === 'histogram' ? [`${name}_bucket`, `${name}_count`, `${name}_sum`] : [name])));
    const dashboard = JSON.parse(readFileSync(new URL('../../../docs/grafana/eql-host.json', import.meta.url), 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    const used = dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => [...target.expr.matchAll(/\b((?:eql|nodejs|process)_[a-z0-9_]+)\b/g)].map((match) => ({ panel: panel.title, metric: match[1] as string }))));
    expect(used.length).toBeGreaterThan(15);
    expect(used.filter(({ metric }) => !known.has(metric))).toEqual([]);
    // And every metric of the host is on the dashboard (the runtime's own aside).
    const drawn = new Set(used.map(({ metric }) => metric.replace(/_(bucket|count|sum)$/, '')));
    expect(families.map(({ name }) => name).filter((name) => name.startsWith('eql_') && !drawn.has(name) && !['eql_partition_owned', 'eql_bus_partition_handled_sequence', 'eql_bus_partition_saved_sequence', 'eql_bus_partition_catching_up'].includes(name))).toEqual([]);
  });

  it('reads a cluster host’s readiness once per scrape, for every gauge drawn from it, and anew at the next', async () => {
    const metrics = new HostMetrics();
    let reads = 0;
    let owned = [0, 1];
    const host = {
      readiness: () => {
        reads += 1;
        return { queries: 0, partitions: { owned, count: 4 }, feedLeader: true, bus: { stream: 'S', connected: true, positions: { 0: { handled: 5, saved: 4, catchingUp: false, behind: 0, judged: 1, malformed: 0, reading: 'shared' as const } } } };
      },
      stats: () => ({ activeQueries: 0, intake: new Map() }),
    } as unknown as QueryRunner;
    metrics.watch({ host, store: { outboxPending: () => ({ count: 0 }) } as unknown as HostStore, sseConnections: () => 0, now: Date.now });
    reads = 0;
    const first = parseScrape((await metrics.scrape()).text).samples;
    expect(reads).toBe(1);
    expect(value(first, 'eql_partitions_owned')).toBe(2);
    owned = [3];
    const second = parseScrape((await metrics.scrape()).text).samples;
    expect(reads).toBe(2);
    expect(value(second, 'eql_partitions_owned')).toBe(1);
    expect(value(second, 'eql_partition_owned', { partition: '3' })).toBe(1);
  });

  it('reads EQL_METRICS, EQL_METRICS_PORT, EQL_METRICS_HOST and EQL_METRICS_TOKEN', () => {
    expect(configFromEnv({}).metrics).toEqual({ enabled: true });
    expect(configFromEnv({ EQL_METRICS: 'off' }).metrics.enabled).toBe(false);
    expect(configFromEnv({ EQL_METRICS_PORT: '9464', EQL_METRICS_HOST: '10.0.0.5', EQL_METRICS_TOKEN: 'a-token-of-16-chars' }).metrics).toEqual({ enabled: true, port: 9464, host: '10.0.0.5', token: 'a-token-of-16-chars' });
    expect(() => configFromEnv({ EQL_METRICS_TOKEN: 'short' })).toThrow('EQL_METRICS_TOKEN must be text of at least 16 characters');
    expect(() => configFromEnv({ EQL_METRICS_PORT: 'nine' })).toThrow('EQL_METRICS_PORT must be a whole number');
  });
});
