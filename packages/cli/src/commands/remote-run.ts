import { classifyRequestActions } from '@eql/core';
import type { EqlClient, QueryRequest, StreamEvent } from '@eql/client';
import { syntaxErrorsText, validationText } from '../format.js';
import { loadDocument } from '../input.js';
import { type CliIo, paint, UnusableInput } from '../io.js';
import { tableLines } from '../table.js';
import { terminalText } from '../terminal-text.js';

/**
 * `eql remote …`: a host's queries from the command line, through @eql/client. The host is `--host`
 * (else EQL_URL, else http://localhost:8787), the key EQL_API_KEY (`--api-key` too), the HMAC secret
 * EQL_HMAC_SECRET (never a flag: flags stay in shell histories and process lists). Exit codes: 0 done,
 * 1 the host refused (its code and message are printed), 2 unusable input or a missing credential,
 * 3 the host could not be reached. What the host sent (titles, messages, ids) is printed for people with
 * its control characters escaped (terminal-text.ts); `--json` prints it exactly.
 */

/** Where `eql remote` sends its requests and with which credentials. */
export interface RemoteFlags {
  host?: string;
  apiKey?: string;
  json: boolean;
}

/** The exit code when the host cannot be reached. */
const UNREACHABLE = 3;

/** Builds the client from flags and environment (loaded when a remote command runs); a missing API key is unusable input. */
async function clientOf(flags: RemoteFlags, env: NodeJS.ProcessEnv): Promise<{ eql: EqlClient; baseUrl: string }> {
  const baseUrl = (flags.host ?? env.EQL_URL ?? 'http://localhost:8787').replace(/\/+$/, '');
  try {
    new URL(baseUrl);
  } catch {
    throw new UnusableInput(`--host is a URL such as http://localhost:8787, not ${baseUrl}`);
  }
  const apiKey = flags.apiKey ?? env.EQL_API_KEY;
  if (!apiKey) throw new UnusableInput('no API key: set EQL_API_KEY (or give --api-key)');
  const hmacSecret = env.EQL_HMAC_SECRET;
  const { createEqlClient } = await import('@eql/client');
  return { eql: createEqlClient({ baseUrl, apiKey, hmacSecret: hmacSecret === '' ? undefined : hmacSecret }), baseUrl };
}

/** Runs a remote command: prints the host's refusals and unreachable hosts, returns the exit code. */
export async function remote(io: CliIo, flags: RemoteFlags, env: NodeJS.ProcessEnv, run: (eql: EqlClient) => Promise<number>): Promise<number> {
  const { eql, baseUrl } = await clientOf(flags, env);
  const { EqlApiError, EqlClientError } = await import('@eql/client');
  try {
    return await run(eql);
  } catch (error) {
    if (error instanceof EqlApiError) {
      if (flags.json) io.stdout(`${JSON.stringify({ success: false, status: error.status, error: { code: error.code, message: error.message.replace(/^[\w.-]+: /, ''), details: error.details } }, null, 2)}\n`);
      else {
        io.stderr(`${paint(io, 'red', 'refused')} ${error.status} ${terminalText(error.message)}\n`);
        if (error.details !== undefined) io.stderr(`${terminalText(JSON.stringify(error.details, null, 2), { lines: true })}\n`);
        if (error.retryAfterSeconds !== undefined) io.stderr(`retry after ${error.retryAfterSeconds} s\n`);
      }
      return 1;
    }
    if (error instanceof EqlClientError) throw new UnusableInput(error.message);
    if (error instanceof TypeError) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      io.stderr(`${terminalText(`eql: cannot reach ${baseUrl}: ${cause?.code ?? cause?.message ?? error.message}`)}\n`);
      return UNREACHABLE;
    }
    throw error;
  }
}

/** Prints a body as JSON, or when not --json as human lines, each escaped for the terminal (a newline in a title cannot start a line). */
function print(io: CliIo, flags: RemoteFlags, body: unknown, human: string | readonly string[]): void {
  const lines = typeof human === 'string' ? [human] : human;
  io.stdout(flags.json ? `${JSON.stringify(body, null, 2)}\n` : `${lines.map((line) => terminalText(line)).join('\n')}\n`);
}

/** The exchanges a request's actions name (market and limit orders, and their callbacks). */
function exchangesNamed(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) exchangesNamed(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === 'exchange' && typeof child === 'string') found.add(child);
      else exchangesNamed(child, found);
    }
  }
  return found;
}

/** Reads a request file: the JSON form as an object, the text form as its text (sent as text/x-eql). Syntax errors print and return undefined. */
async function requestOf(file: string, io: CliIo): Promise<{ body: QueryRequest | string; value: unknown; name: string } | undefined> {
  const document = await loadDocument(file, io);
  if (document.syntaxErrors.length > 0) {
    io.stderr(syntaxErrorsText(io, document.name, document.syntaxErrors));
    return undefined;
  }
  return { body: document.format === 'json' ? (document.value as QueryRequest) : document.text, value: document.value, name: document.name };
}

/** `eql remote create FILE`: the trade preflight when it trades, validate, then create. */
export async function createRemote(eql: EqlClient, file: string, flags: RemoteFlags & { validateOnly?: boolean; signing: boolean }, io: CliIo): Promise<number> {
  const request = await requestOf(file, io);
  if (!request) return 1;
  if (!flags.validateOnly && classifyRequestActions(request.value) === 'trade') {
    if (!flags.signing) throw new UnusableInput(`${request.name} trades, so its creation is signed (spec 5.2): set EQL_HMAC_SECRET to the key's HMAC secret`);
    // The preflight the host requires before a trading query (spec 4.4), and a clear word when a venue is not connected.
    const { exchanges } = await eql.listExchanges();
    const connected = new Set(exchanges.filter((exchange) => exchange.status === 'connected').map((exchange) => String(exchange.exchange)));
    const missing = [...exchangesNamed((request.value as { query?: { actions?: unknown } }).query?.actions)].filter((name) => !connected.has(name));
    if (missing.length > 0) {
      io.stderr(`${terminalText(`${request.name} trades on ${missing.join(', ')}, which this key has not connected (POST /v2/auto/exchanges; connected: ${[...connected].join(', ') || 'none'})`)}\n`);
      return 1;
    }
  }
  const validation = await eql.validateQuery(request.body);
  if (flags.validateOnly || validation.valid !== true) {
    if (flags.json) io.stdout(`${JSON.stringify(validation, null, 2)}\n`);
    else io.stdout(validationText(io, request.name, 'api-key', validation as Parameters<typeof validationText>[3]));
    return validation.valid === true ? 0 : 1;
  }
  const created = await eql.createQuery(request.body);
  print(io, flags, created, `created ${created.queryId} (${created.status}, ${created.estimatedCredits} credits)`);
  return 0;
}

/** One line for a notification, escaped for the terminal. */
function notificationLine(event: Extract<StreamEvent, { event: 'notification:new' }>): string {
  return terminalText(`${event.data.createdAt}  ${event.data.title}: ${event.data.body}  (query ${event.data.data.queryId}, id ${event.id})`);
}

/** `eql remote watch [QUERY_ID]`: notifications as they come, until the query ends, --count of them, or Ctrl-C. */
export async function watchRemote(eql: EqlClient, queryId: string | undefined, flags: RemoteFlags & { from?: string; count?: string }, io: CliIo): Promise<number> {
  const count = flags.count === undefined ? undefined : Number(flags.count);
  if (count !== undefined && !(Number.isInteger(count) && count > 0)) throw new UnusableInput('--count is a whole number above 0');
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once('SIGINT', interrupt);
  let seen = 0;
  try {
    const options = { signal: stop.signal, onReconnect: ({ lastEventId, delayMs }: { lastEventId: string | undefined; delayMs: number }) => io.stderr(`disconnected; reconnecting in ${delayMs} ms after id ${terminalText(lastEventId ?? 'none')}\n`) };
    for await (const event of eql.notifications({ ...options, ...(queryId === undefined ? {} : { queryId }), ...(flags.from === undefined ? {} : { lastEventId: flags.from }) })) {
      if (flags.json) io.stdout(`${JSON.stringify(event)}\n`);
      else if (event.event === 'notification:new') io.stdout(`${notificationLine(event)}\n`);
      else if (event.event === 'ready') io.stderr(`${terminalText(`watching ${queryId ?? 'every query of the key'}${event.data.lastEventId ? ` after id ${event.data.lastEventId}` : ''}`)}\n`);
      else if (event.event === 'end') io.stderr(`${terminalText(`query ${event.data.queryId} is ${event.data.status}`)}\n`);
      if (event.event === 'notification:new' && count !== undefined && (seen += 1) >= count) break;
    }
  } finally {
    process.removeListener('SIGINT', interrupt);
  }
  return 0;
}

/** `eql remote ping`. */
export async function pingRemote(client: EqlClient, flags: RemoteFlags, io: CliIo): Promise<number> {
  print(io, flags, await client.ping(), 'the host answers');
  return 0;
}

/** `eql remote get`: a query's status, credits, latest evaluation and executions. */
export async function getRemote(client: EqlClient, queryId: string, flags: RemoteFlags, io: CliIo): Promise<number> {
  const query = await client.getQuery(queryId);
  const evaluation = query.latestEvaluation ? `, evaluated ${query.latestEvaluation.evaluatedAt ?? ''}${query.latestEvaluation.wouldTriggerNow ? ', would trigger now' : ''}` : '';
  print(io, flags, query, `${query.queryId}  ${query.status}  ${query.credits ?? 0} credits${evaluation}`);
  return 0;
}

/** `eql remote list`: the key's queries, as a table. */
export async function listRemote(client: EqlClient, filter: { status?: string; limit?: string }, flags: RemoteFlags, io: CliIo): Promise<number> {
  const { status, limit } = filter;
  const page = await client.listQueries({ ...(status === undefined ? {} : { status }), ...(limit === undefined ? {} : { limit: Number(limit) }) });
  const rows = page.queries.map((query) => [String(query.queryId ?? query.id), String(query.status), typeof query.title === 'string' ? query.title : '']);
  print(io, flags, page, rows.length > 0 ? tableLines([['ID', 'STATUS', 'TITLE'], ...rows]) : 'no queries');
  return 0;
}

/** `eql remote cancel`. */
export async function cancelRemote(client: EqlClient, queryId: string, flags: RemoteFlags, io: CliIo): Promise<number> {
  print(io, flags, await client.cancelQuery(queryId), `cancelled ${queryId}`);
  return 0;
}

/** `eql remote delete`. */
export async function deleteRemote(client: EqlClient, queryId: string, flags: RemoteFlags, io: CliIo): Promise<number> {
  print(io, flags, await client.deleteQuery(queryId), `deleted ${queryId}`);
  return 0;
}

/** `eql remote executions`: the key's executions, newest first. */
export async function executionsRemote(client: EqlClient, queryId: string | undefined, flags: RemoteFlags, io: CliIo): Promise<number> {
  const page = await client.listExecutions(queryId === undefined ? undefined : { queryId });
  const lines = (page.executions ?? []).map((execution) => `${execution.createdAt}  ${execution.queryId}  ${execution.stepId ?? ''}  ${execution.type}  ${execution.status}${execution.error ? `  ${execution.error.code}: ${execution.error.message}` : ''}`);
  print(io, flags, page, lines.length > 0 ? lines : 'no executions');
  return 0;
}
