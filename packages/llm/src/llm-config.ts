/**
 * Configuration of the language model behind the analyst: an OpenAI-compatible chat-completions
 * endpoint. Read from the environment by `llmConfigFromEnv`; absent when neither a base URL nor a
 * key is set, in which case the host answers with the offline analyst.
 */

export interface LlmConfig {
  /** Base URL of the OpenAI-compatible API, ending before `/chat/completions` (for example `http://127.0.0.1:8080/v1`). Unset: OpenAI's. */
  baseURL?: string;
  /** Bearer token. Unset for local endpoints that take none (no Authorization header is sent). */
  apiKey?: string;
  /** Model for `speed: fast`. */
  fastModel: string;
  /** Model for `speed: expert`. */
  expertModel: string;
  /** Budget of one completion, retries included (ms). */
  timeoutMs: number;
  /** Retries after a retryable failure (429, 408, 409, 5xx, connection errors): 0 to 5. */
  maxRetries: number;
}

/** The model of `speed: fast` when neither EQL_LLM_FAST_MODEL nor EQL_LLM_EXPERT_MODEL is set. */
export const DEFAULT_FAST_MODEL = 'gpt-4o-mini';
/** The model of `speed: expert` when neither EQL_LLM_EXPERT_MODEL nor EQL_LLM_FAST_MODEL is set. */
export const DEFAULT_EXPERT_MODEL = 'gpt-4o';
/** The budget of one completion, retries included, when EQL_LLM_TIMEOUT_MS is unset: 30 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Retries after a retryable failure when EQL_LLM_MAX_RETRIES is unset. */
export const DEFAULT_MAX_RETRIES = 2;

/** A variable of the LLM configuration is malformed; the message names it but never repeats a key. */
export class LlmConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LlmConfigError';
  }
}

const nonEmpty = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
};

function integerVar(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number, min: number, max: number): number {
  const raw = nonEmpty(env[name]);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new LlmConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  return value;
}

/**
 * Reads EQL_LLM_BASE_URL, EQL_LLM_API_KEY, EQL_LLM_FAST_MODEL, EQL_LLM_EXPERT_MODEL,
 * EQL_LLM_TIMEOUT_MS (default 30000) and EQL_LLM_MAX_RETRIES (default 2). Undefined when the base URL
 * and the key are both unset (no model: the offline analyst answers). With one model name only, both
 * speeds use it; with none, `gpt-4o-mini` (fast) and `gpt-4o` (expert). Throws LlmConfigError on a
 * malformed value.
 */
export function llmConfigFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): LlmConfig | undefined {
  const baseURL = nonEmpty(env.EQL_LLM_BASE_URL);
  const apiKey = nonEmpty(env.EQL_LLM_API_KEY);
  if (baseURL === undefined && apiKey === undefined) return undefined;
  if (baseURL !== undefined) {
    let url: URL;
    try {
      url = new URL(baseURL);
    } catch {
      throw new LlmConfigError('EQL_LLM_BASE_URL must be an absolute http(s) URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new LlmConfigError('EQL_LLM_BASE_URL must be an absolute http(s) URL');
  }
  const fast = nonEmpty(env.EQL_LLM_FAST_MODEL);
  const expert = nonEmpty(env.EQL_LLM_EXPERT_MODEL);
  const config: LlmConfig = {
    fastModel: fast ?? expert ?? DEFAULT_FAST_MODEL,
    expertModel: expert ?? fast ?? DEFAULT_EXPERT_MODEL,
    timeoutMs: integerVar(env, 'EQL_LLM_TIMEOUT_MS', DEFAULT_TIMEOUT_MS, 1, 600_000),
    maxRetries: integerVar(env, 'EQL_LLM_MAX_RETRIES', DEFAULT_MAX_RETRIES, 0, 5),
  };
  if (baseURL !== undefined) config.baseURL = baseURL;
  if (apiKey !== undefined) config.apiKey = apiKey;
  return config;
}

/** A one-line description for startup logs: endpoint host, models, timeout, whether a key is set; never the key. */
export function describeLlmConfig(config: LlmConfig | undefined): string {
  if (!config) return 'no language model configured: the offline analyst answers from the local data';
  let endpoint = 'api.openai.com';
  if (config.baseURL !== undefined) {
    const url = new URL(config.baseURL);
    endpoint = `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`;
  }
  return `language model at ${endpoint} (fast ${config.fastModel}, expert ${config.expertModel}, timeout ${config.timeoutMs} ms, ${config.maxRetries} retries, ${config.apiKey === undefined ? 'no key' : 'key set'})`;
}
