import { HMAC_MAX_DRIFT_SECONDS, matchHmacRoute, signRequest } from '@eql/core';
import type { CliIo } from '../io.js';
import { UnusableInput } from '../io.js';
import { terminalText } from '../terminal-text.js';

export interface SignFlags {
  /** The body: a file (`@file`), `-` for standard input, or the text itself. */
  body?: string;
  /** The HMAC secret (default EQL_HMAC_SECRET). */
  secret?: string;
  /** The host's URL for the curl line (default EQL_URL, else http://localhost:8787). */
  host?: string;
  /** Unix time in seconds (default now). */
  timestamp?: string;
  json: boolean;
}

/** A shell word in single quotes. */
const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * `eql sign METHOD PATH [--body @file.json]`: the signature headers of spec 5.2 for one request
 * (x-svc-timestamp, x-svc-signature) and a curl line that sends it, the API key left as
 * `$EQL_API_KEY` (the command prints no key and no secret). The signed string is the timestamp, the
 * method, the path inside /v2/auto and the body exactly as it will be sent (no body on the routes whose
 * signature does not cover it). Exit 0 signed, 2 unusable input.
 */
export async function signCommand(method: string, path: string, flags: SignFlags, io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const verb = method.toUpperCase();
  if (!/^(GET|POST|PUT|PATCH|DELETE)$/.test(verb)) throw new UnusableInput(`the method is GET, POST, PUT, PATCH or DELETE, not ${method}`);
  const url = new URL(path, 'http://host');
  if (!url.pathname.startsWith('/v2/auto/')) throw new UnusableInput('the path is a route of the Auto API: /v2/auto/...');
  if (url.search !== '') throw new UnusableInput('a signed request carries no query string (the signature does not cover it)');
  const secret = flags.secret ?? env.EQL_HMAC_SECRET;
  if (!secret) throw new UnusableInput('no HMAC secret: set EQL_HMAC_SECRET (the key\'s HMAC secret, printed when the key was made) or give --secret');
  const timestamp = flags.timestamp ?? String(Math.floor(Date.now() / 1000));
  if (!/^[0-9]{1,12}$/.test(timestamp)) throw new UnusableInput('--timestamp is Unix time in whole seconds');
  let body = '';
  let bodyArgument: string | undefined;
  if (flags.body !== undefined) {
    if (flags.body === '-') body = await io.readStdin();
    else if (flags.body.startsWith('@')) {
      try {
        body = await io.readFile(flags.body.slice(1));
      } catch {
        throw new UnusableInput(`cannot read ${flags.body.slice(1)}`);
      }
      bodyArgument = flags.body;
    } else body = flags.body;
  }
  const signingPath = url.pathname.slice('/v2/auto'.length);
  const route = matchHmacRoute(verb, signingPath);
  const signedBody = route.entry?.bodyInSignature === false ? '' : body;
  const signature = await signRequest(secret, { timestamp, method: verb, path: signingPath, body: signedBody });
  const base = (flags.host ?? env.EQL_URL ?? 'http://localhost:8787').replace(/\/+$/, '');
  const curl = [
    'curl',
    '-s',
    ...(verb === 'GET' ? [] : ['-X', verb]),
    quote(`${base}${url.pathname}`),
    '-H',
    '"x-svc-api-key: $EQL_API_KEY"',
    '-H',
    quote(`x-svc-timestamp: ${timestamp}`),
    '-H',
    quote(`x-svc-signature: ${signature}`),
    ...(body === '' ? [] : ['-H', quote('content-type: application/json'), '--data-binary', bodyArgument ? quote(bodyArgument) : quote(body)]),
  ].join(' ');
  if (flags.json) {
    io.stdout(`${JSON.stringify({ headers: { 'x-svc-timestamp': timestamp, 'x-svc-signature': signature }, signed: `${timestamp}${verb}${signingPath}${signedBody}`, curl }, null, 2)}\n`);
  } else {
    io.stdout(`x-svc-timestamp: ${timestamp}\nx-svc-signature: ${signature}\n`);
    if (route.entry === undefined) io.stderr(`note: ${verb} ${terminalText(url.pathname)} is not a route of spec 5.2's table: the host does not ask for a signature there\n`);
    // Control characters of the body are shown escaped, so the command then differs from what was signed.
    const shown = terminalText(curl, { lines: true });
    io.stdout(`\n${shown}\n`);
    if (shown !== curl) io.stderr('note: the command has control characters, shown escaped above: send the body from a file (--body @FILE) or take the command from --json\n');
    io.stderr(`send it within ${HMAC_MAX_DRIFT_SECONDS} s of its timestamp, once: the host accepts a signature a single time\n`);
  }
  return 0;
}
