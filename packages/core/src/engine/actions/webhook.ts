import { defer, from, type Observable, type SchedulerLike, switchMap, throwError, timer } from 'rxjs';
import type { Action, CallbackAction } from '../../generated/eql-types.js';
import { judgeWebhookUrl } from '../../net/host-policy.js';
import { isRecord } from '../../util/json-pointer.js';
import {
  ActionError,
  type ActionContext,
  type ActionExecutor,
  type ActionOutcome,
  type HttpResponse,
  type HttpTransport,
  type MaybePromise,
  TransportError,
} from '../interfaces.js';
import { isoTime } from '../maybe.js';
import { type BackoffPolicy, DEFAULT_BACKOFF, parseRetryAfter, retryDelayMs } from './backoff.js';
import { hmacSha256Base64 } from './hmac-base64.js';
import { renderedText } from './rendered-text.js';

/**
 * Options of the webhook executor: the HTTP transport, the scheduler that times retries, signing secrets and
 * limits.
 */
export interface WebhookOptions {
  transport: HttpTransport;
  scheduler: SchedulerLike;
  /**
   * The signing secret of the query's owner (the host keeps one per API key), or several: each signs,
   * and `webhook-signature` lists them all (a rotated secret still verifies during its grace period).
   */
  secretFor?: (ownerId: string | undefined) => MaybePromise<string | readonly string[] | undefined>;
  timeoutMs?: number;
  backoff?: Partial<BackoffPolicy>;
  /** Deliver to loopback and private hosts too (tests, self-hosted setups). */
  allowPrivate?: boolean;
}

const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'host', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'user-agent']);

/**
 * webhook: a JSON POST following Standard Webhooks. Headers `webhook-id` (the same on every retry:
 * `<queryId>:<triggerIndex>:<stepId>`), `webhook-timestamp` (seconds) and, when the owner has a
 * secret, `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. A 2xx is success;
 * 429, 5xx, timeouts and network errors are retried with exponential backoff and jitter (honouring
 * Retry-After) up to the attempt limit; 410 and other statuses (redirects included) fail at once.
 * Private and loopback targets are refused (unless allowed), here and again by the transport at
 * connect time.
 */
export class WebhookExecutor implements ActionExecutor {
  private readonly backoff: BackoffPolicy;

  constructor(private readonly options: WebhookOptions) {
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
  }

  execute(action: Action | CallbackAction, context: ActionContext): Observable<ActionOutcome> {
    return defer(() => {
      const params = isRecord(action.params) ? action.params : {};
      const url = typeof params.url === 'string' ? params.url : '';
      const verdict = judgeWebhookUrl(url, { allowPrivate: this.options.allowPrivate ?? false });
      if (!verdict.ok) return throwError(() => new ActionError('WEBHOOK_BLOCKED_TARGET', `webhook URL ${verdict.message}`));
      const own = ownBody(params, context);
      if (own instanceof ActionError) return throwError(() => own);
      const { body, contentType } = own ?? { body: JSON.stringify(webhookBody(params, context)), contentType: 'application/json' };
      return this.attempt(url, body, { ...extraHeaders(params.headers), 'content-type': contentType }, context, 1);
    });
  }

  private attempt(url: string, body: string, extra: Record<string, string>, context: ActionContext, attempt: number): Observable<ActionOutcome> {
    return defer(() => from(this.signedHeaders(body, extra, context))).pipe(
      switchMap((headers) =>
        from(
          this.options.transport.send({ url, method: 'POST', headers, body, timeoutMs: this.options.timeoutMs ?? 10_000 }).then(
            (response): Outcome => ({ response }),
            (error: unknown): Outcome => ({ error }),
          ),
        ),
      ),
      switchMap((outcome) => {
        const decision = this.decide(outcome, context.now());
        if (decision.kind === 'success') return [{ result: { status: decision.status, attempts: attempt } }];
        if (decision.kind === 'retry' && attempt < this.backoff.maxAttempts) {
          const delay = retryDelayMs(this.backoff, attempt, decision.retryAfterMs);
          return timer(delay, this.options.scheduler).pipe(switchMap(() => this.attempt(url, body, extra, context, attempt + 1)));
        }
        const suffix = decision.kind === 'retry' ? ` after ${attempt} attempt${attempt === 1 ? '' : 's'}` : '';
        return throwError(() => new ActionError(decision.code, `${decision.message}${suffix}`));
      }),
    );
  }

  private async signedHeaders(body: string, extra: Record<string, string>, context: ActionContext): Promise<Record<string, string>> {
    const id = context.idempotencyKey;
    const timestamp = String(Math.floor(context.now() / 1000));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      ...extra,
      'user-agent': 'eql-webhooks/0.1',
      'webhook-id': id,
      'webhook-timestamp': timestamp,
    };
    const given = await this.options.secretFor?.(context.ownerId);
    const secrets = (typeof given === 'string' ? [given] : (given ?? [])).filter((secret) => secret !== '');
    if (secrets.length > 0) {
      const signatures = await Promise.all(secrets.map(async (secret) => `v1,${await hmacSha256Base64(webhookSigningKey(secret), `${id}.${timestamp}.${body}`)}`));
      headers['webhook-signature'] = signatures.join(' ');
    }
    return headers;
  }

  private decide(outcome: Outcome, now: number): Decision {
    if ('error' in outcome) {
      const error = outcome.error;
      if (error instanceof TransportError) {
        if (error.failure === 'blocked-target') return { kind: 'fail', code: 'WEBHOOK_BLOCKED_TARGET', message: 'the webhook host resolves to a private or loopback address' };
        return { kind: 'retry', code: error.failure === 'timeout' ? 'WEBHOOK_TIMEOUT' : 'WEBHOOK_NETWORK_ERROR', message: `webhook delivery failed: ${error.failure}` };
      }
      return { kind: 'retry', code: 'WEBHOOK_NETWORK_ERROR', message: 'webhook delivery failed' };
    }
    const { status, headers } = outcome.response;
    if (status >= 200 && status < 300) return { kind: 'success', status };
    if (status === 410) return { kind: 'fail', code: 'WEBHOOK_GONE', message: 'the webhook endpoint answered 410 Gone' };
    if (status === 429 || status >= 500) {
      const retryAfterMs = parseRetryAfter(headerOf(headers, 'retry-after'), now);
      return retryAfterMs === undefined
        ? { kind: 'retry', code: 'WEBHOOK_HTTP_ERROR', message: `the webhook endpoint answered ${status}` }
        : { kind: 'retry', code: 'WEBHOOK_HTTP_ERROR', message: `the webhook endpoint answered ${status}`, retryAfterMs };
    }
    return { kind: 'fail', code: 'WEBHOOK_HTTP_ERROR', message: `the webhook endpoint answered ${status}` };
  }
}

type Outcome = { response: HttpResponse } | { error: unknown };

type Decision =
  | { kind: 'success'; status: number }
  | { kind: 'retry'; code: string; message: string; retryAfterMs?: number }
  | { kind: 'fail'; code: string; message: string };

/**
 * The HMAC key of a signing secret: a Standard Webhooks secret (`whsec_<base64>`) signs with the bytes
 * its base64 encodes, as the Standard Webhooks libraries verify; any other secret with its UTF-8 bytes.
 */
export function webhookSigningKey(secret: string): string | Uint8Array<ArrayBuffer> {
  if (!secret.startsWith('whsec_')) return secret;
  const binary = atob(secret.slice('whsec_'.length));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function headerOf(headers: Record<string, string>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

function extraHeaders(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(value)) return out;
  for (const [name, header] of Object.entries(value)) {
    if (typeof header === 'string' && !RESERVED_HEADERS.has(name.toLowerCase())) out[name] = header;
  }
  return out;
}

/**
 * The step's own `body`, its placeholders filled (JSON-escaped for `application/json`), with its content
 * type; undefined without one (EQL's envelope goes); an error when a JSON body is no JSON once filled.
 */
export function ownBody(params: Record<string, unknown>, context: ActionContext): { body: string; contentType: string } | ActionError | undefined {
  if (typeof params.body !== 'string') return undefined;
  if (params.contentType === 'text/plain') return { body: renderedText(params.body, context, 'text'), contentType: 'text/plain; charset=utf-8' };
  const body = renderedText(params.body, context, 'json');
  try {
    JSON.parse(body);
  } catch {
    return new ActionError('WEBHOOK_BODY_INVALID', 'the webhook body is not JSON once its placeholders are filled');
  }
  return { body, contentType: 'application/json' };
}

/** The JSON delivered: what fired, when, with which values, and the step's own payload. */
export function webhookBody(params: Record<string, unknown>, context: ActionContext): Record<string, unknown> {
  const { trigger } = context;
  const data: Record<string, unknown> = {
    queryId: trigger.queryId,
    title: trigger.title ?? null,
    triggerIndex: trigger.triggerIndex,
    firedAt: isoTime(trigger.firedAt),
    stepId: context.stepId,
    conditionStates: trigger.conditionStates,
  };
  if (context.analysis) data.analysis = context.analysis;
  if (isRecord(params.payload)) data.payload = params.payload;
  return { id: context.idempotencyKey, type: 'eql.query.triggered', timestamp: isoTime(context.now()), data };
}
