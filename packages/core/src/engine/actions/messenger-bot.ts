import { defer, from, type Observable, type SchedulerLike, switchMap, throwError, timer } from 'rxjs';
import type { Action, CallbackAction } from '../../generated/eql-types.js';
import { isRecord } from '../../util/json-pointer.js';
import { secretRedactor } from '../../util/redact.js';
import { ActionError, type ActionContext, type ActionExecutor, type ActionOutcome, type HttpResponse, type HttpTransport, TransportError } from '../interfaces.js';
import { isoTime } from '../maybe.js';
import { type BackoffPolicy, DEFAULT_BACKOFF, retryDelayMs } from './backoff.js';
import { renderedText } from './rendered-text.js';

/** Options of the messenger_bot executor: the HTTP transport, the scheduler that times retries, and limits. */
export interface MessengerBotOptions {
  transport: HttpTransport;
  scheduler: SchedulerLike;
  /** Bot API base URL (default https://api.telegram.org); tests point it at a local server. */
  baseUrl?: string;
  timeoutMs?: number;
  backoff?: Partial<BackoffPolicy>;
}

const MAX_TEXT = 4096;

/**
 * messenger_bot: `POST <base>/bot<token>/sendMessage {chat_id, text}` (the Telegram Bot API). A 429
 * is retried after the `retry_after` the API gives (bounded attempts), network failures with backoff;
 * any other refusal fails with the API's description. The token is part of the URL and is never put
 * in a message, an error or a result.
 *
 * At most once across restarts: a send that a restart left in doubt (it may have reached the API) is not
 * sent again, since the Bot API can neither dedupe a message nor say whether one arrived; it fails with
 * `DELIVERY_UNCERTAIN`.
 */
export class MessengerBotExecutor implements ActionExecutor {
  private readonly backoff: BackoffPolicy;

  constructor(private readonly options: MessengerBotOptions) {
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
  }

  execute(action: Action | CallbackAction, context: ActionContext): Observable<ActionOutcome> {
    return defer(() => {
      const params = isRecord(action.params) ? action.params : {};
      const token = typeof params.botToken === 'string' ? params.botToken : '';
      if (token === '' || /[\s/?#]/.test(token)) return throwError(() => new ActionError('MESSENGER_BOT_ERROR', 'the bot token is missing or malformed'));
      const chatId = typeof params.chatId === 'number' || typeof params.chatId === 'string' ? params.chatId : '';
      const body = JSON.stringify({ chat_id: chatId, text: messageText(params, context), disable_web_page_preview: true });
      const url = `${(this.options.baseUrl ?? 'https://api.telegram.org').replace(/\/+$/, '')}/bot${token}/sendMessage`;
      return this.attempt(url, body, 1, secretRedactor([token]));
    });
  }

  /** A message a restart cut off may have been delivered: it is never sent a second time. */
  resume(_action: Action | CallbackAction, context: ActionContext): Observable<ActionOutcome> {
    const since = context.inDoubt ? ` at ${context.inDoubt.since}` : '';
    return throwError(
      () =>
        new ActionError(
          'DELIVERY_UNCERTAIN',
          `the host stopped while this message was being sent${since}; it may or may not have been delivered, and the bot API cannot tell, so it is not sent again`,
        ),
    );
  }

  private attempt(url: string, body: string, attempt: number, redact: (text: string) => string): Observable<ActionOutcome> {
    const request = { url, method: 'POST' as const, headers: { 'content-type': 'application/json' }, body, timeoutMs: this.options.timeoutMs ?? 10_000 };
    return from(
      // A transport that throws at once (an unusable URL) fails like one that rejects: its text, which
      // holds the URL and so the token, is never used.
      Promise.resolve().then(() => this.options.transport.send(request)).then(
        (response): { response: HttpResponse } | { error: unknown } => ({ response }),
        (error: unknown) => ({ error }),
      ),
    ).pipe(
      switchMap((outcome) => {
        if ('error' in outcome) {
          const failure = outcome.error instanceof TransportError ? outcome.error.failure : 'network';
          if (failure !== 'blocked-target' && attempt < this.backoff.maxAttempts) return this.retry(url, body, attempt, redact);
          return throwError(() => new ActionError('MESSENGER_BOT_ERROR', `the bot API could not be reached (${failure})`));
        }
        const reply = parseReply(outcome.response.body);
        if (outcome.response.status >= 200 && outcome.response.status < 300 && reply.ok) {
          return [{ result: reply.messageId === undefined ? { delivered: true } : { messageId: reply.messageId } }];
        }
        if ((outcome.response.status === 429 || outcome.response.status >= 500) && attempt < this.backoff.maxAttempts) {
          return this.retry(url, body, attempt, redact, reply.retryAfterSeconds === undefined ? undefined : reply.retryAfterSeconds * 1000);
        }
        // The API's description may quote the request (a proxy echoing the URL): the token is removed.
        return throwError(
          () => new ActionError('MESSENGER_BOT_ERROR', `the bot API refused the message (${outcome.response.status}${reply.description ? `: ${redact(reply.description)}` : ''})`),
        );
      }),
    );
  }

  private retry(url: string, body: string, attempt: number, redact: (text: string) => string, retryAfterMs?: number): Observable<ActionOutcome> {
    return timer(retryDelayMs(this.backoff, attempt, retryAfterMs), this.options.scheduler).pipe(switchMap(() => this.attempt(url, body, attempt + 1, redact)));
  }
}

function parseReply(body: string): { ok: boolean; messageId?: number; description?: string; retryAfterSeconds?: number } {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (!isRecord(parsed)) return { ok: false };
    const result = isRecord(parsed.result) ? parsed.result : {};
    const parameters = isRecord(parsed.parameters) ? parsed.parameters : {};
    const reply: { ok: boolean; messageId?: number; description?: string; retryAfterSeconds?: number } = { ok: parsed.ok === true };
    if (typeof result.message_id === 'number') reply.messageId = result.message_id;
    if (typeof parsed.description === 'string') reply.description = parsed.description.slice(0, 200);
    if (typeof parameters.retry_after === 'number') reply.retryAfterSeconds = parameters.retry_after;
    return reply;
  } catch {
    return { ok: false };
  }
}

/** The text sent: the step's message, else the analysis (as an llm callback), else a summary of the trigger. */
export function messageText(params: Record<string, unknown>, context: ActionContext): string {
  if (typeof params.message === 'string') return renderedText(params.message, context).slice(0, MAX_TEXT);
  if (context.analysis) return context.analysis.response.slice(0, MAX_TEXT);
  const { trigger } = context;
  const lines = [`${trigger.title ?? 'EQL query'} triggered at ${isoTime(trigger.firedAt)}`];
  for (const state of trigger.conditionStates) {
    const what = [state.source, state.method].filter(Boolean).join('.');
    lines.push(`• ${what}${state.value === undefined ? '' : ` = ${state.value}`}${state.threshold === undefined ? '' : ` (threshold ${state.threshold})`}`);
  }
  return lines.join('\n').slice(0, MAX_TEXT);
}
