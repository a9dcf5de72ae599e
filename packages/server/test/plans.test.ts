import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRecording, PushSource } from '@eql/core';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer, configFromEnv, createApiKey, type Host } from '../src/index.js';

// Plans an operator defines (EQL_PLANS_FILE): requests a minute, daily and monthly quotas, most active
// queries and overage, over free and pro; keys created on them are held to them.

const dir = mkdtempSync(join(tmpdir(), 'eql-plans-'));
const hosts: Host[] = [];
afterAll(async () => {
  for (const host of hosts) await host.close();
  rmSync(dir, { recursive: true, force: true });
});

function plansFile(name: string, body: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
  return path;
}

const TINY = { requestsPerMinute: 3, dailyRequestLimit: 1_000, monthlyRequestLimit: 10_000, maxActiveQueries: 1 };
const INTERNAL = { requestsPerMinute: 1_000_000, dailyRequestLimit: 1_000_000_000_000, monthlyRequestLimit: 1_000_000_000_000, maxActiveQueries: 1_000_000, tier: 'internal team' };

describe('plans', () => {
  it('reads EQL_PLANS_FILE over free and pro, and EQL_API_PLAN may name one of its plans', () => {
    const config = configFromEnv({ EQL_PLANS_FILE: plansFile('ok.json', { tiny: TINY, internal: INTERNAL }), EQL_API_PLAN: 'internal' });
    expect(Object.keys(config.plans)).toEqual(['free', 'pro', 'tiny', 'internal']);
    expect(config.plans.tiny).toEqual({ ...TINY, allowOverage: false, maxOverage: 0, tier: 'tiny' });
    expect(config.plans.internal).toMatchObject({ tier: 'internal team', dailyRequestLimit: 1e12 });
    expect(config.seedPlan).toBe('internal');
    expect(() => configFromEnv({ EQL_API_PLAN: 'internal' })).toThrow('EQL_API_PLAN must be one of free, pro, not "internal"');
  });

  it('names the file, the plan and the field of every mistake in it', () => {
    expect(() => configFromEnv({ EQL_PLANS_FILE: plansFile('broken.json', '{"tiny": ') })).toThrow(/^EQL_PLANS_FILE \(.*broken\.json\): not JSON/);
    expect(() => configFromEnv({ EQL_PLANS_FILE: plansFile('list.json', [TINY]) })).toThrow('must be a JSON object of plans by name');
    let message = '';
    try {
      configFromEnv({ EQL_PLANS_FILE: plansFile('bad.json', { tiny: { ...TINY, requestsPerMinute: 0, burst: 5 }, 'Big Plan': TINY, half: { dailyRequestLimit: 10 } }) });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('plan "tiny": unknown field "burst"');
    expect(message).toContain('plan "tiny": requestsPerMinute must be a whole number from 1 to 1000000000000');
    expect(message).toContain('plan "Big Plan": a name is 1 to 32 lowercase letters');
    expect(message).toContain('plan "half": monthlyRequestLimit must be a whole number from 1 to 1000000000000');
    expect(() => configFromEnv({ EQL_PLANS_FILE: join(dir, 'none.json') })).toThrow(/EQL_PLANS_FILE \(.*none\.json\): cannot read it \(ENOENT\)/);
  });

  it('holds a key to its plan: requests a minute, most active queries, key-status; a plan no longer configured counts as free', async () => {
    const config = configFromEnv({ EQL_PLANS_FILE: plansFile('host.json', { tiny: TINY, internal: INTERNAL }) });
    const host = await buildServer({
      config: { dataDir: join(dir, 'data'), marketSeed: false, plans: config.plans },
      logger: false,
      engine: { sources: [new PushSource()], recording: parseRecording('{"at":"2026-01-05T00:00:00Z","source":"price","symbol":"BTC","price":1}\n') },
    });
    hosts.push(host);
    const tiny = await createApiKey(host.context.store, host.context.box, { name: 'tiny', plan: 'tiny' });
    const headers = { 'x-svc-api-key': tiny.key };
    const status = await host.app.inject({ method: 'GET', url: '/v2/key-status', headers });
    expect(status.json<{ data: Record<string, unknown> }>().data).toMatchObject({ tier: 'tiny', requestsPerMinute: 3, dailyRequestLimit: 1_000, monthlyRequestLimit: 10_000, allowOverage: false });
    const body = { query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1e9 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'x' } }], expiresIn: '1d' } };
    const validate = (keyHeaders: Record<string, string>) => host.app.inject({ method: 'POST', url: '/v2/auto/queries/validate', headers: keyHeaders, payload: body });
    const create = (keyHeaders: Record<string, string>) => host.app.inject({ method: 'POST', url: '/v2/auto/queries', headers: keyHeaders, payload: body });
    // The plan's one active query: a second is refused.
    expect((await validate(headers)).statusCode).toBe(200);
    expect((await create(headers)).statusCode).toBe(201);
    const second = await create(headers);
    expect(second.statusCode).toBe(422);
    expect(second.json<{ error: { code: string; message: string } }>().error).toEqual({ code: 'too_many_active_queries', message: 'a tiny key runs at most 1 active queries; cancel some first' });
    // The fourth Auto request of the minute: over the plan's 3.
    const fourth = await validate(headers);
    expect(fourth.statusCode).toBe(429);
    expect(fourth.json<{ error: { code: string; message: string } }>().error.message).toMatch(/^more than 3 requests a minute/);

    // The internal plan: many queries, many requests.
    const internal = await createApiKey(host.context.store, host.context.box, { name: 'internal', plan: 'internal' });
    const internalHeaders = { 'x-svc-api-key': internal.key };
    expect((await validate(internalHeaders)).statusCode).toBe(200);
    for (let i = 0; i < 5; i += 1) expect((await create(internalHeaders)).statusCode).toBe(201);
    expect((await host.app.inject({ method: 'GET', url: '/v2/key-status', headers: internalHeaders })).json<{ data: Record<string, unknown> }>().data).toMatchObject({ tier: 'internal team', dailyRequestLimit: 1e12 });

    // A key whose plan was taken out of the file is held to free.
    const gone = await createApiKey(host.context.store, host.context.box, { name: 'gone', plan: 'retired' });
    const goneStatus = await host.app.inject({ method: 'GET', url: '/v2/key-status', headers: { 'x-svc-api-key': gone.key } });
    expect(goneStatus.json<{ data: Record<string, unknown> }>().data).toMatchObject({ tier: 'free', requestsPerMinute: 60 });
  });
});
