import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Observation } from '@eql/core';
import { configFromEnv } from '../src/config.js';
import { MarketBus } from '../src/scale-out/market-bus.js';
import { parseNatsUrl, redactNatsUrl } from '../src/scale-out/nats-connection.js';
import { credsFile, makeCertificates, nkeyUser, operatorMode, type TestCertificates } from './support/nats-credentials.js';
import { describeWithNatsServer, startNatsServer, type TestNatsServer } from './support/nats-server.js';

// The market bus on nats-servers that ask who connects (issue 45, finding 3): each way to authenticate
// (user and password from the settings and from the URL, token, NKey, creds file, TLS client
// certificate) lets a MarketBus publish and read the stream with the right credentials, and is refused
// with an error that says so without them; no error repeats a password.

const servers: TestNatsServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop().catch(() => undefined);
});

async function server(config: Parameters<typeof startNatsServer>[0], options?: Parameters<typeof startNatsServer>[1]): Promise<TestNatsServer> {
  const started = await startNatsServer(config, options);
  servers.push(started);
  return started;
}

/** Publishes an observation through `bus` and reads it back from the stream. */
async function roundTrip(bus: MarketBus): Promise<Observation> {
  const observation: Observation = { at: Date.now(), source: 'price', symbol: 'BTC', price: 42 };
  const published = await bus.publish(observation, randomBytes(8).toString('hex'));
  let resolve!: (observation: Observation) => void;
  const read = new Promise<Observation>((done) => (resolve = done));
  const reading = await bus.read(published!.seq, (message) => {
    resolve(message.observation);
    return undefined;
  });
  try {
    return await read;
  } finally {
    await reading.stop();
  }
}

/** Connects with `url` and the settings of `env` (as the host reads them), publishes and reads back one observation. */
async function worksWith(url: string, env: Record<string, string> = {}): Promise<void> {
  const config = configFromEnv({ EQL_NATS_URL: url, ...env });
  const bus = await MarketBus.connect(config.natsUrl!, { name: 'bus-auth', ...(config.natsAuth ? { auth: config.natsAuth } : {}) });
  try {
    expect(await roundTrip(bus)).toMatchObject({ source: 'price', symbol: 'BTC', price: 42 });
  } finally {
    await bus.close();
  }
}

/** The error of connecting with `url` and the settings of `env` (waiting `connectTimeoutMs` for a handshake the server may never finish). */
async function refusal(url: string, env: Record<string, string> = {}, connectTimeoutMs?: number): Promise<string> {
  const config = configFromEnv({ EQL_NATS_URL: url, ...env });
  const outcome = await MarketBus.connect(config.natsUrl!, { name: 'bus-auth', ...(config.natsAuth ? { auth: config.natsAuth } : {}), ...(connectTimeoutMs ? { connectTimeoutMs } : {}) }).then(
    async (bus) => {
      await bus.close();
      return undefined;
    },
    (error: unknown) => error as Error,
  );
  expect(outcome, 'the connection was not refused').toBeInstanceOf(Error);
  return outcome!.message;
}

const REFUSED = /^cannot connect to the market bus at .*: Authorization Violation \(the server refused the credentials/;

describeWithNatsServer('the market bus on a NATS server with users and passwords', () => {
  const PASSWORD = 'pa@ss:w/rd%!';
  let nats: TestNatsServer;
  const url = () => nats.url;
  const withPassword = (password: string) => `nats://eql:${encodeURIComponent(password)}@127.0.0.1:${nats.port}`;

  it('uses the user and password of EQL_NATS_URL (nats://user:password@host:port, percent-encoded)', { timeout: 60_000 }, async () => {
    nats = await server(`authorization { users = [ { user: "eql", password: ${JSON.stringify(PASSWORD)} } ] }`);
    await worksWith(withPassword(PASSWORD));
  });

  it('uses EQL_NATS_USER and EQL_NATS_PASSWORD', { timeout: 60_000 }, async () => {
    await worksWith(url(), { EQL_NATS_USER: 'eql', EQL_NATS_PASSWORD: PASSWORD });
  });

  it('is refused without credentials, or with a wrong password, by an error that names the server and never the password', { timeout: 60_000 }, async () => {
    expect(await refusal(url())).toMatch(REFUSED);
    const wrong = await refusal(withPassword('not-the-password-123'));
    expect(wrong).toMatch(REFUSED);
    expect(wrong).toContain(`nats://***@127.0.0.1:${nats.port}`);
    expect(wrong).not.toContain('not-the-password-123');
    expect(await refusal(url(), { EQL_NATS_USER: 'eql', EQL_NATS_PASSWORD: 'wrong' })).toMatch(REFUSED);
  });

  it('refuses credentials given both in the URL and in the settings, before connecting', { timeout: 60_000 }, async () => {
    const message = await refusal(withPassword(PASSWORD), { EQL_NATS_USER: 'eql', EQL_NATS_PASSWORD: PASSWORD });
    expect(message).toMatch(/the NATS URL holds credentials and so do EQL_NATS_USER/);
    expect(message).not.toContain('w/rd');
  });
});

describeWithNatsServer('the market bus on a NATS server with a token', () => {
  const TOKEN = `tok-${randomBytes(12).toString('hex')}`;
  let nats: TestNatsServer;

  it('uses EQL_NATS_TOKEN, and a token in the URL (nats://token@host:port)', { timeout: 60_000 }, async () => {
    nats = await server(`authorization { token: ${JSON.stringify(TOKEN)} }`);
    await worksWith(nats.url, { EQL_NATS_TOKEN: TOKEN });
    await worksWith(`nats://${TOKEN}@127.0.0.1:${nats.port}`);
  });

  it('is refused without the token, or with another', { timeout: 60_000 }, async () => {
    expect(await refusal(nats.url)).toMatch(REFUSED);
    const wrong = await refusal(`nats://tok-wrong-secret@127.0.0.1:${nats.port}`);
    expect(wrong).toMatch(REFUSED);
    expect(wrong).not.toContain('tok-wrong-secret');
  });
});

describeWithNatsServer('the market bus on a NATS server with NKeys', () => {
  const user = nkeyUser();
  let nats: TestNatsServer;

  it('uses EQL_NATS_NKEY_SEED, and EQL_NATS_NKEY_SEED_FILE', { timeout: 60_000 }, async () => {
    nats = await server(`authorization { users = [ { nkey: ${user.publicKey} } ] }`);
    await worksWith(nats.url, { EQL_NATS_NKEY_SEED: user.seed });
    const file = join(nats.dir, 'host.nk');
    writeFileSync(file, `${user.seed}\n`, { mode: 0o600 });
    await worksWith(nats.url, { EQL_NATS_NKEY_SEED_FILE: file });
  });

  it('is refused without a seed, or with the seed of another user', { timeout: 60_000 }, async () => {
    expect(await refusal(nats.url)).toMatch(REFUSED);
    expect(await refusal(nats.url, { EQL_NATS_NKEY_SEED: nkeyUser().seed })).toMatch(REFUSED);
  });
});

describeWithNatsServer('the market bus on a NATS server in operator mode (JWT), with a creds file', () => {
  const chain = operatorMode();
  let nats: TestNatsServer;
  let creds: string;
  let stranger: string;

  it('uses the user JWT and seed of EQL_NATS_CREDS', { timeout: 60_000 }, async () => {
    nats = await server(chain.serverConfig);
    creds = join(nats.dir, 'host.creds');
    stranger = join(nats.dir, 'stranger.creds');
    writeFileSync(creds, chain.creds, { mode: 0o600 });
    writeFileSync(stranger, chain.stranger, { mode: 0o600 });
    await worksWith(nats.url, { EQL_NATS_CREDS: creds });
  });

  it('is refused without creds, or with the creds of an account the operator did not sign', { timeout: 60_000 }, async () => {
    expect(await refusal(nats.url)).toMatch(REFUSED);
    expect(await refusal(nats.url, { EQL_NATS_CREDS: stranger })).toMatch(REFUSED);
    // A user JWT with the seed of another user: the signature of the nonce does not match.
    const swapped = join(nats.dir, 'swapped.creds');
    writeFileSync(swapped, credsFile(/-----BEGIN NATS USER JWT-----\n(\S+)/.exec(chain.creds)![1]!, nkeyUser().seed));
    expect(await refusal(nats.url, { EQL_NATS_CREDS: swapped })).toMatch(REFUSED);
  });
});

describeWithNatsServer('the market bus over TLS with a client certificate (verify: true)', () => {
  let nats: TestNatsServer;
  let certs: TestCertificates;

  it('connects with the CA of EQL_NATS_TLS_CA and the certificate and key of EQL_NATS_TLS_CERT / EQL_NATS_TLS_KEY', { timeout: 60_000 }, async () => {
    nats = await server((dir) => {
      certs = makeCertificates(dir);
      return `tls { cert_file: ${JSON.stringify(certs.serverCert)}, key_file: ${JSON.stringify(certs.serverKey)}, ca_file: ${JSON.stringify(certs.ca)}, verify: true }`;
    });
    await worksWith(nats.url, { EQL_NATS_TLS_CA: certs.ca, EQL_NATS_TLS_CERT: certs.clientCert, EQL_NATS_TLS_KEY: certs.clientKey });
    await worksWith(`tls://127.0.0.1:${nats.port}`, { EQL_NATS_TLS_CA: certs.ca, EQL_NATS_TLS_CERT: certs.clientCert, EQL_NATS_TLS_KEY: certs.clientKey });
  });

  it('is refused without a client certificate, with one of another CA, and when the server\'s certificate is not of the given CA', { timeout: 60_000 }, async () => {
    // The server closes the connection after the handshake: the client waits out its timeout (3 s here),
    // and the server's log says that it refused the certificate, not that the machine was slow.
    const handshake = /^cannot connect to the market bus at nats:\/\/127\.0\.0\.1:\d+: timeout \(the server did not finish the handshake: it refuses a client certificate it does not trust, or none/;
    expect(await refusal(nats.url, { EQL_NATS_TLS_CA: certs.ca }, 3_000)).toMatch(handshake);
    expect(nats.log()).toContain("TLS handshake error: tls: client didn't provide a certificate");
    expect(await refusal(nats.url, { EQL_NATS_TLS_CA: certs.ca, EQL_NATS_TLS_CERT: certs.strangerCert, EQL_NATS_TLS_KEY: certs.strangerKey }, 3_000)).toMatch(handshake);
    expect(nats.log()).toContain('TLS handshake error: tls: failed to verify client certificate: x509: certificate signed by unknown authority');
    // The client trusts another CA: the server's certificate does not verify.
    expect(await refusal(nats.url, { EQL_NATS_TLS_CA: certs.strangerCert, EQL_NATS_TLS_CERT: certs.clientCert, EQL_NATS_TLS_KEY: certs.clientKey })).toMatch(/certificate/i);
  });

  it('refuses a server without TLS when TLS is set', { timeout: 60_000 }, async () => {
    const plain = await server('');
    expect(await refusal(plain.url, { EQL_NATS_TLS_CA: certs.ca })).toMatch(/server does not support 'tls'/);
    expect(await refusal(`tls://127.0.0.1:${plain.port}`)).toMatch(/server does not support 'tls'/);
  });
});

describeWithNatsServer('whether the bus is open to anyone', () => {
  it('is said when the server asks no authentication and listens beyond loopback, and not when it asks or listens on loopback only', { timeout: 60_000 }, async () => {
    const check = async (url: string, env: Record<string, string> = {}) => {
      const config = configFromEnv({ EQL_NATS_URL: url, ...env });
      const bus = await MarketBus.connect(config.natsUrl!, config.natsAuth ? { auth: config.natsAuth } : {});
      await bus.close();
      return bus.openWarning;
    };
    const everywhere = await server('', { listen: '0.0.0.0' });
    expect(await check(everywhere.url)).toMatch(/^the market bus is open: its NATS server \(listening on 0\.0\.0\.0:\d+\) asks for no authentication, so anyone who can reach it can publish prices/);
    await everywhere.stop();
    const guarded = await server('authorization { users = [ { user: "eql", password: "pw" } ] }', { listen: '0.0.0.0' });
    expect(await check(guarded.url, { EQL_NATS_USER: 'eql', EQL_NATS_PASSWORD: 'pw' })).toBeUndefined();
    await guarded.stop();
    const local = await server('');
    expect(await check(local.url)).toBeUndefined();
  });
});

describe('the bus settings', () => {
  const env = (values: Record<string, string>) => () => configFromEnv({ EQL_NATS_URL: 'nats://127.0.0.1:4222', ...values });

  it('name the setting that is wrong, and never repeat a secret', () => {
    expect(env({ EQL_NATS_USER: 'eql' })).toThrow('EQL_NATS_USER is set but EQL_NATS_PASSWORD is not');
    expect(env({ EQL_NATS_PASSWORD: 'secret-pw' })).toThrow('EQL_NATS_PASSWORD is set but EQL_NATS_USER is not');
    expect(env({ EQL_NATS_USER: 'eql', EQL_NATS_PASSWORD: 'pw', EQL_NATS_TOKEN: 'tok' })).toThrow(/EQL_NATS_USER and EQL_NATS_TOKEN are all set/);
    expect(env({ EQL_NATS_NKEY_SEED: 'SUnot-a-seed-at-all' })).toThrow(/^EQL_NATS_NKEY_SEED is not an NKey user seed/);
    expect(env({ EQL_NATS_NKEY_SEED: 'SUnot-a-seed-at-all' })).not.toThrow(/not-a-seed/);
    expect(env({ EQL_NATS_CREDS: '/nonexistent/host.creds' })).toThrow('EQL_NATS_CREDS: cannot read /nonexistent/host.creds (ENOENT)');
    expect(env({ EQL_NATS_TLS_CERT: '/x/client.pem' })).toThrow('EQL_NATS_TLS_CERT is set but EQL_NATS_TLS_KEY is not');
    expect(env({ EQL_NATS_TLS_KEY: '/x/client.key' })).toThrow('EQL_NATS_TLS_KEY is set but EQL_NATS_TLS_CERT is not');
  });

  it('take the credentials out of the URL, and show it with them masked', () => {
    expect(parseNatsUrl('nats://eql:p%40ss@a:4222, nats://eql:p%40ss@b:4222')).toEqual({ servers: ['nats://a:4222', 'nats://b:4222'], tls: false, user: 'eql', password: 'p@ss' });
    expect(parseNatsUrl('tls://t0ken@a:4222')).toEqual({ servers: ['tls://a:4222'], tls: true, token: 't0ken' });
    expect(() => parseNatsUrl('nats://eql:one@a:4222,nats://eql:two@b:4222')).toThrow('the servers of the NATS URL hold different credentials');
    expect(() => parseNatsUrl('http://eql:one@a:4222')).toThrow('the NATS server http://***@a:4222 must start with nats://');
    expect(redactNatsUrl('nats://eql:secret@a:4222,nats://b:4222')).toBe('nats://***@a:4222,nats://b:4222');
    expect(redactNatsUrl('nats://t0ken@a:4222')).toBe('nats://***@a:4222');
    expect(redactNatsUrl('not a url with secret')).toBe('(a value that is not a URL)');
  });

  it('read the files they name at start: a creds file that is not one, a PEM that is not a certificate, a key of another certificate', () => {
    const dir = mkdtempSync(join(tmpdir(), 'eql-bus-settings-'));
    const certs = makeCertificates(dir);
    const notCreds = join(dir, 'bad.creds');
    writeFileSync(notCreds, 'SUAM-secret-looking-text\n');
    expect(env({ EQL_NATS_CREDS: notCreds })).toThrow(`EQL_NATS_CREDS (${notCreds}) is not a NATS creds file`);
    expect(env({ EQL_NATS_CREDS: notCreds })).not.toThrow(/secret-looking/);
    expect(env({ EQL_NATS_TLS_CA: certs.serverKey })).toThrow(`EQL_NATS_TLS_CA (${certs.serverKey}) is not a PEM certificate`);
    expect(env({ EQL_NATS_TLS_CERT: certs.clientCert, EQL_NATS_TLS_KEY: certs.strangerKey })).toThrow(`EQL_NATS_TLS_KEY (${certs.strangerKey}) is not the key of EQL_NATS_TLS_CERT (${certs.clientCert})`);
    expect(env({ EQL_NATS_TLS_CERT: certs.clientCert, EQL_NATS_TLS_KEY: certs.clientCert })).toThrow(`EQL_NATS_TLS_KEY (${certs.clientCert}) is not a PEM private key`);
  });
});
