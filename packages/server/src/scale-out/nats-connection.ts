import { isIP } from 'node:net';
import { type Authenticator, type ConnectionOptions, jwtAuthenticator, nkeyAuthenticator, type ServerInfo, tokenAuthenticator, usernamePasswordAuthenticator } from '@nats-io/transport-node';
import { hasCredentials, type NatsAuth } from '../settings/nats-settings.js';

/**
 * From a bus URL and its settings to the options of `@nats-io`'s `connect`, and the URL as it may be
 * shown. The client ignores the user and password of a URL (`nats://user:password@host:4222`), so they
 * are taken out here; a URL holding only a user (`nats://token@host:4222`) holds a token, as with the
 * other NATS clients.
 */

/** The servers of a URL (comma separated) without their credentials, and the credentials they held. */
export interface NatsUrl {
  servers: string[];
  /** Some server was given as `tls://`: the connection must be encrypted. */
  tls: boolean;
  user?: string;
  password?: string;
  token?: string;
}

/** Splits a bus URL; throws (the URL shown redacted) when it is not one, or its servers hold different credentials. */
export function parseNatsUrl(text: string): NatsUrl {
  const servers: string[] = [];
  let tls = false;
  let credentials: { user: string; password: string } | undefined;
  for (const part of text.split(',')) {
    const server = part.trim();
    if (server === '') continue;
    let url: URL;
    try {
      url = new URL(server);
    } catch {
      throw new Error(`the NATS server ${redactNatsUrl(server)} is not a URL`);
    }
    if (!['nats:', 'tls:', 'ws:', 'wss:'].includes(url.protocol)) throw new Error(`the NATS server ${redactNatsUrl(server)} must start with nats://, tls://, ws:// or wss://`);
    if (url.protocol === 'tls:' || url.protocol === 'wss:') tls = true;
    if (url.username !== '' || url.password !== '') {
      const held = { user: decoded(url.username), password: decoded(url.password) };
      if (credentials !== undefined && (credentials.user !== held.user || credentials.password !== held.password)) throw new Error('the servers of the NATS URL hold different credentials: give them once (or in EQL_NATS_USER / EQL_NATS_PASSWORD / EQL_NATS_TOKEN)');
      credentials = held;
    }
    servers.push(`${url.protocol}//${url.host}`);
  }
  if (servers.length === 0) throw new Error('the NATS URL names no server');
  const parsed: NatsUrl = { servers, tls };
  if (credentials?.password === '') parsed.token = credentials.user;
  else if (credentials !== undefined) Object.assign(parsed, credentials);
  return parsed;
}

/** A part of a URL's user information as written (`%40` is `@`), or as it stands when it is not well percent-encoded. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A bus URL fit for logs and errors: each server's credentials as `***`. Text that is not a URL is not repeated. */
export function redactNatsUrl(text: string): string {
  return text
    .split(',')
    .map((part) => {
      const server = part.trim();
      let url: URL;
      try {
        url = new URL(server);
      } catch {
        return '(a value that is not a URL)';
      }
      return url.username === '' && url.password === '' ? server : `${url.protocol}//***@${url.host}${url.pathname === '/' ? '' : url.pathname}`;
    })
    .join(',');
}

/**
 * The connection options of a bus URL with `auth` (the settings): the servers without credentials, one
 * authenticator, and TLS required when a `tls://` server, a CA or a client certificate is given. The
 * credentials of the URL and those of the settings are one or the other, never both.
 */
export function natsConnectionOptions(url: string, auth: NatsAuth = {}): ConnectionOptions {
  const parsed = parseNatsUrl(url);
  const fromUrl = parsed.user !== undefined || parsed.token !== undefined;
  if (fromUrl && (auth.user !== undefined || auth.token !== undefined || auth.nkeySeed !== undefined || auth.creds !== undefined)) {
    throw new Error('the NATS URL holds credentials and so do EQL_NATS_USER / EQL_NATS_TOKEN / EQL_NATS_NKEY_SEED / EQL_NATS_CREDS: give them one way');
  }
  const user = parsed.user ?? auth.user;
  const password = parsed.password ?? auth.password;
  const token = parsed.token ?? auth.token;
  const encode = (text: string) => new TextEncoder().encode(text);
  const authenticator: Authenticator | undefined =
    user !== undefined
      ? usernamePasswordAuthenticator(user, password ?? '')
      : token !== undefined
        ? tokenAuthenticator(token)
        : auth.nkeySeed !== undefined
          ? nkeyAuthenticator(encode(auth.nkeySeed))
          : auth.creds !== undefined
            ? jwtAuthenticator(auth.creds.jwt, encode(auth.creds.seed))
            : undefined;
  const tls = parsed.tls || auth.tls !== undefined ? { ...auth.tls } : undefined;
  return { servers: parsed.servers, ...(authenticator ? { authenticator } : {}), ...(tls ? { tls } : {}) };
}

/** Whether the URL or the settings hold a way to authenticate. */
export function busHasCredentials(url: string, auth: NatsAuth | undefined): boolean {
  let parsed: NatsUrl | undefined;
  try {
    parsed = parseNatsUrl(url);
  } catch {
    parsed = undefined;
  }
  return parsed?.user !== undefined || parsed?.token !== undefined || hasCredentials(auth);
}

/**
 * Why anyone who can reach the bus's server could publish prices into the stream (every tenant's queries
 * fire on them, orders included), or undefined: the server asks no authentication, or the host gave
 * none and was let in (a `no_auth_user`). A server that listens on loopback only is left out: only
 * this machine reaches it.
 */
export function openBusWarning(info: Pick<ServerInfo, 'auth_required' | 'tls_verify' | 'host' | 'port'> | undefined, credentials: boolean): string | undefined {
  if (info === undefined || isLoopback(info.host)) return undefined;
  const open = !(info.auth_required === true || info.tls_verify === true);
  if (!open && credentials) return undefined;
  const why = open ? 'asks for no authentication' : 'let this host in without credentials';
  return (
    `the market bus is open: its NATS server (listening on ${info.host}:${info.port}) ${why}, so anyone who can reach it can publish prices ` +
    'into the stream, and every tenant\'s queries fire on them, orders included; set EQL_NATS_USER and EQL_NATS_PASSWORD (or EQL_NATS_TOKEN, ' +
    'EQL_NATS_NKEY_SEED, EQL_NATS_CREDS, a client certificate) and the server\'s authorization (docs/scale-out.md)'
  );
}

function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}
