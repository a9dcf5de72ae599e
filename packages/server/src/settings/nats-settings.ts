import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { nkeys } from '@nats-io/transport-node';

/**
 * How a host (or `eql bus ...`) proves itself to the NATS server of the market bus, and the TLS it
 * requires. At most one way to authenticate (user and password, a token, an NKey, or a creds file);
 * TLS goes with any of them (and a client certificate can be the authentication itself). Files are
 * read when the settings are, so a wrong path stops the start with an error naming the setting; no
 * error ever repeats a password, token, seed or creds file's content.
 */
export interface NatsAuth {
  user?: string;
  password?: string;
  token?: string;
  /** An NKey user seed (`SU...`): the server knows its public key (`U...`). */
  nkeySeed?: string;
  /** A user JWT and its seed (what a `.creds` file holds), for a server of operator mode (decentralised JWT). */
  creds?: { jwt: string; seed: string };
  /** PEM texts: the CA the server's certificate must chain to, and this client's certificate and key. */
  tls?: { ca?: string; cert?: string; key?: string };
}

/** The settings of the bus's authentication and TLS, each read from an environment variable. */
export const NATS_AUTH_SETTINGS = [
  'EQL_NATS_USER',
  'EQL_NATS_PASSWORD',
  'EQL_NATS_TOKEN',
  'EQL_NATS_NKEY_SEED',
  'EQL_NATS_NKEY_SEED_FILE',
  'EQL_NATS_CREDS',
  'EQL_NATS_TLS_CA',
  'EQL_NATS_TLS_CERT',
  'EQL_NATS_TLS_KEY',
] as const;

/** Reads EQL_NATS_USER ... EQL_NATS_TLS_KEY; undefined when none is set. Throws an error naming the setting. */
export function natsAuthFromEnv(env: NodeJS.ProcessEnv): NatsAuth | undefined {
  const value = (name: (typeof NATS_AUTH_SETTINGS)[number]) => (env[name]?.trim() ? env[name].trim() : undefined);
  const auth: NatsAuth = {};
  const user = value('EQL_NATS_USER');
  const password = env.EQL_NATS_PASSWORD === undefined || env.EQL_NATS_PASSWORD === '' ? undefined : env.EQL_NATS_PASSWORD;
  if (user !== undefined && password === undefined) throw new Error('EQL_NATS_USER is set but EQL_NATS_PASSWORD is not: set both, or neither');
  if (password !== undefined && user === undefined) throw new Error('EQL_NATS_PASSWORD is set but EQL_NATS_USER is not: set both, or neither');
  if (user !== undefined && password !== undefined) Object.assign(auth, { user, password });
  const token = value('EQL_NATS_TOKEN');
  if (token !== undefined) auth.token = token;
  const seedText = value('EQL_NATS_NKEY_SEED');
  const seedFile = value('EQL_NATS_NKEY_SEED_FILE');
  if (seedText !== undefined && seedFile !== undefined) throw new Error('EQL_NATS_NKEY_SEED and EQL_NATS_NKEY_SEED_FILE are both set: give the seed one way');
  if (seedText !== undefined) auth.nkeySeed = userSeed(seedText, 'EQL_NATS_NKEY_SEED');
  if (seedFile !== undefined) auth.nkeySeed = userSeed(readSetting('EQL_NATS_NKEY_SEED_FILE', seedFile), `EQL_NATS_NKEY_SEED_FILE (${seedFile})`);
  const credsFile = value('EQL_NATS_CREDS');
  if (credsFile !== undefined) auth.creds = parseCreds(readSetting('EQL_NATS_CREDS', credsFile), `EQL_NATS_CREDS (${credsFile})`);
  const ways = [auth.user !== undefined && 'EQL_NATS_USER', auth.token !== undefined && 'EQL_NATS_TOKEN', auth.nkeySeed !== undefined && (seedFile ? 'EQL_NATS_NKEY_SEED_FILE' : 'EQL_NATS_NKEY_SEED'), auth.creds !== undefined && 'EQL_NATS_CREDS'].filter(Boolean);
  if (ways.length > 1) throw new Error(`${ways.join(' and ')} are all set: a NATS user authenticates one way (user and password, a token, an NKey or a creds file)`);
  const tls = tlsFromEnv(value('EQL_NATS_TLS_CA'), value('EQL_NATS_TLS_CERT'), value('EQL_NATS_TLS_KEY'));
  if (tls) auth.tls = tls;
  return Object.keys(auth).length === 0 ? undefined : auth;
}

/** Whether `auth` holds a way to authenticate (a client certificate counts: a server with `verify` accepts only it). */
export function hasCredentials(auth: NatsAuth | undefined): boolean {
  return auth !== undefined && (auth.user !== undefined || auth.token !== undefined || auth.nkeySeed !== undefined || auth.creds !== undefined || auth.tls?.cert !== undefined);
}

/** The text of a file a setting names; the error names the setting and the path, never the content. */
function readSetting(setting: string, path: string): string {
  try {
    return readFileSync(resolve(path), 'utf8');
  } catch (error) {
    throw new Error(`${setting}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { cause: error });
  }
}

/** A user seed, checked by decoding it (never repeated in the error). */
function userSeed(text: string, setting: string): string {
  const seed = text.trim();
  let publicKey: string | undefined;
  try {
    publicKey = nkeys.fromSeed(new TextEncoder().encode(seed)).getPublicKey();
  } catch {
    publicKey = undefined;
  }
  if (publicKey === undefined || !publicKey.startsWith('U')) throw new Error(`${setting} is not an NKey user seed (one line starting with SU, as nsc or nk -gen user writes it)`);
  return seed;
}

/** The blocks of a creds file: `-----BEGIN NATS USER JWT-----`, then `-----BEGIN USER NKEY SEED-----`. */
const CREDS_BLOCK = /-{3,}[^\n]*-{3,}\r?\n\s*(\S+)\s*\r?\n\s*-{3,}[^\n]*-{3,}/g;

function parseCreds(text: string, setting: string): { jwt: string; seed: string } {
  const [jwt, seed] = [...text.matchAll(CREDS_BLOCK)].map((match) => match[1] ?? '');
  if (jwt === undefined || seed === undefined || jwt.split('.').length !== 3) throw new Error(`${setting} is not a NATS creds file (a user JWT block, then a user NKey seed block)`);
  return { jwt, seed: userSeed(seed, setting) };
}

/** The TLS of EQL_NATS_TLS_CA / _CERT / _KEY: each PEM read and parsed now, the key checked against the certificate. */
function tlsFromEnv(caFile: string | undefined, certFile: string | undefined, keyFile: string | undefined): NatsAuth['tls'] {
  if ((certFile === undefined) !== (keyFile === undefined)) throw new Error(`${certFile === undefined ? 'EQL_NATS_TLS_KEY' : 'EQL_NATS_TLS_CERT'} is set but ${certFile === undefined ? 'EQL_NATS_TLS_CERT' : 'EQL_NATS_TLS_KEY'} is not: a client certificate goes with its key`);
  if (caFile === undefined && certFile === undefined) return undefined;
  const tls: NonNullable<NatsAuth['tls']> = {};
  if (caFile !== undefined) {
    tls.ca = readSetting('EQL_NATS_TLS_CA', caFile);
    certificate(tls.ca, `EQL_NATS_TLS_CA (${caFile})`);
  }
  if (certFile !== undefined && keyFile !== undefined) {
    tls.cert = readSetting('EQL_NATS_TLS_CERT', certFile);
    tls.key = readSetting('EQL_NATS_TLS_KEY', keyFile);
    const cert = certificate(tls.cert, `EQL_NATS_TLS_CERT (${certFile})`);
    let key;
    try {
      key = createPrivateKey(tls.key);
    } catch {
      throw new Error(`EQL_NATS_TLS_KEY (${keyFile}) is not a PEM private key`);
    }
    if (!cert.checkPrivateKey(key)) throw new Error(`EQL_NATS_TLS_KEY (${keyFile}) is not the key of EQL_NATS_TLS_CERT (${certFile})`);
  }
  return tls;
}

function certificate(pem: string, setting: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new Error(`${setting} is not a PEM certificate`);
  }
}
