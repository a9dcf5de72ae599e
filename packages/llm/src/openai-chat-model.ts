import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { type ChatModel, type Completion, type CompletionRequest, ModelError, type Speed } from './chat-model.js';
import type { LlmConfig } from './llm-config.js';

/** The configuration of an {@link OpenAiChatModel}: the endpoint, models, timeout and retries of {@link LlmConfig}, and bounds of its waits and replies. */
export interface OpenAiChatModelOptions extends LlmConfig {
  /** Upper bound of one wait between attempts, whatever Retry-After says (ms; default 4000). */
  maxRetryDelayMs?: number;
  /** Default `max_tokens` when the request gives none (default 1500). */
  defaultMaxTokens?: number;
}

/** What one failed attempt was, in terms the retry loop and the error mapping need. */
interface Failure {
  retryable: boolean;
  /** Wait the endpoint asked for (Retry-After, retry-after-ms), in ms. */
  retryAfterMs?: number;
  error: ModelError;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });

/**
 * A ChatModel over the `openai` package, against any OpenAI-compatible endpoint
 * (`POST {baseURL}/chat/completions`). `speed` picks the fast or the expert model; `responseFormat:
 * 'json'` sends `response_format: {type: 'json_object'}`. One completion has `timeoutMs` in all,
 * retries included; retryable failures (429, 408, 409, 5xx, connection errors) are retried at most
 * `maxRetries` times, waiting what Retry-After asks (capped) or an exponential backoff. The client's
 * own retries and logging are off, so nothing here can log a request; failures become ModelError
 * whose messages carry the status and the endpoint's error code but never its error text (which may
 * echo the key) nor the key itself.
 */
export class OpenAiChatModel implements ChatModel {
  private readonly client: OpenAI;
  private readonly endpoint: string;

  constructor(private readonly options: OpenAiChatModelOptions) {
    this.client = new OpenAI({
      apiKey: options.apiKey ?? 'no-key',
      ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
      // Without a key (a local endpoint), send no Authorization header at all.
      ...(options.apiKey === undefined ? { defaultHeaders: { Authorization: null } } : {}),
      maxRetries: 0,
      timeout: options.timeoutMs,
      logLevel: 'off',
      organization: null,
      project: null,
    });
    this.endpoint = options.baseURL === undefined ? 'api.openai.com' : new URL(options.baseURL).host;
  }

  /** The model name a speed uses. */
  modelFor(speed: Speed): string {
    return speed === 'expert' ? this.options.expertModel : this.options.fastModel;
  }

  async complete(request: CompletionRequest): Promise<Completion> {
    const deadline = Date.now() + this.options.timeoutMs;
    const maxDelay = this.options.maxRetryDelayMs ?? 4_000;
    for (let attempt = 0; ; attempt++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw this.timeoutError();
      let failure: Failure;
      try {
        return await this.attempt(request, remaining);
      } catch (error) {
        failure = this.classify(error, request.signal);
        failure.error = this.redacted(failure.error);
      }
      if (!failure.retryable || attempt >= this.options.maxRetries) throw failure.error;
      const backoff = Math.min(250 * 2 ** attempt, maxDelay) * (0.8 + 0.2 * Math.random());
      const delay = Math.min(failure.retryAfterMs ?? backoff, maxDelay);
      if (Date.now() + delay >= deadline) throw failure.error;
      await sleep(delay, request.signal);
      if (request.signal?.aborted) throw new ModelError('LLM_UPSTREAM_ERROR', 'the completion was cancelled');
    }
  }

  private async attempt(request: CompletionRequest, timeout: number): Promise<Completion> {
    const model = this.modelFor(request.speed);
    const response = await this.client.chat.completions.create(
      {
        model,
        messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
        max_tokens: request.maxTokens ?? this.options.defaultMaxTokens ?? 1_500,
        ...(request.responseFormat === 'json' ? { response_format: { type: 'json_object' as const } } : {}),
      },
      { timeout, maxRetries: 0, ...(request.signal ? { signal: request.signal } : {}) },
    );
    const choice = response.choices?.[0];
    const text = typeof choice?.message?.content === 'string' ? choice.message.content.trim() : '';
    if (text === '') {
      const reason = typeof choice?.finish_reason === 'string' ? ` (finish reason ${safeCode(choice.finish_reason)})` : '';
      throw new ModelError('LLM_EMPTY_REPLY', `the language model ${model} gave an empty reply${reason}`);
    }
    return { text, model: typeof response.model === 'string' && response.model !== '' ? response.model : model };
  }

  /** Belt and braces: the key never appears in a message, even inside an upstream code. */
  private redacted(error: ModelError): ModelError {
    const key = this.options.apiKey;
    if (key === undefined || key === '' || !error.message.includes(key)) return error;
    return new ModelError(error.code, error.message.split(key).join('[redacted]'), error.status);
  }

  private timeoutError(): ModelError {
    return new ModelError('LLM_TIMEOUT', `the language model did not answer within ${this.options.timeoutMs} ms`);
  }

  /** Maps a failure of the client to a ModelError with a message of our own. */
  private classify(error: unknown, signal: AbortSignal | undefined): Failure {
    if (error instanceof ModelError) return { retryable: false, error };
    if (error instanceof APIConnectionTimeoutError) return { retryable: false, error: this.timeoutError() };
    if (error instanceof APIUserAbortError) {
      if (signal?.aborted) return { retryable: false, error: new ModelError('LLM_UPSTREAM_ERROR', 'the completion was cancelled') };
      return { retryable: false, error: this.timeoutError() };
    }
    if (error instanceof APIConnectionError) {
      const cause = error.cause as { code?: unknown } | undefined;
      const code = typeof cause?.code === 'string' ? ` (${safeCode(cause.code)})` : '';
      return { retryable: true, error: new ModelError('LLM_UPSTREAM_ERROR', `could not reach the language model endpoint ${this.endpoint}${code}`) };
    }
    if (error instanceof APIError && typeof error.status === 'number') {
      const status = error.status;
      const upstreamCode = typeof error.code === 'string' ? safeCode(error.code) : typeof error.type === 'string' ? safeCode(error.type) : '';
      const detail = upstreamCode === '' ? '' : `, ${upstreamCode}`;
      const failure: Failure = {
        retryable: status === 408 || status === 409 || status === 429 || status >= 500,
        error: new ModelError('LLM_UPSTREAM_ERROR', `${statusText(status, this.endpoint, this.modelFor('fast'), this.modelFor('expert'))} (HTTP ${status}${detail})`, status),
      };
      const retryAfter = retryAfterMs(error.headers as Headers | undefined);
      if (retryAfter !== undefined) failure.retryAfterMs = retryAfter;
      return failure;
    }
    // Anything else (a malformed response body, a bug): no upstream text is repeated.
    const name = error instanceof Error ? safeCode(error.name) : 'unknown error';
    return { retryable: false, error: new ModelError('LLM_UPSTREAM_ERROR', `the language model call failed (${name})`) };
  }
}

function statusText(status: number, endpoint: string, fast: string, expert: string): string {
  if (status === 401 || status === 403) return `the language model endpoint ${endpoint} refused the credentials`;
  if (status === 404) return `the language model endpoint ${endpoint} knows no such path or model (${fast === expert ? fast : `${fast} / ${expert}`})`;
  if (status === 429) return `the language model endpoint ${endpoint} is rate limiting`;
  if (status === 408) return `the language model endpoint ${endpoint} timed out`;
  if (status >= 500) return `the language model endpoint ${endpoint} failed`;
  return `the language model endpoint ${endpoint} rejected the request`;
}

/** Keeps a machine code (`invalid_api_key`, `ECONNREFUSED`) and nothing that could be free text. */
function safeCode(value: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]{0,39}$/.test(value) ? value : 'unknown';
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  if (!headers || typeof headers.get !== 'function') return undefined;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get('retry-after');
  if (raw === null) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(raw);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}
