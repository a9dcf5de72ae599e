/** A chat-completion model: an OpenAI-compatible endpoint, or a test double. */

/** Which configured model answers a request: `fast` the fast model (EQL_LLM_FAST_MODEL), `expert` the expert one. */
export type Speed = 'fast' | 'expert';

/** One message of a chat-completion conversation: the system prompt, a user turn or an assistant reply. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What to ask a {@link ChatModel}: the conversation, which model speed, and optional JSON mode, token cap and abort signal. */
export interface CompletionRequest {
  messages: ChatMessage[];
  /** `fast` uses the configured fast model, `expert` the expert one. */
  speed: Speed;
  /** `json` asks for a JSON object reply (response_format json_object). */
  responseFormat?: 'text' | 'json';
  maxTokens?: number;
  signal?: AbortSignal;
}

/** A model's answer: its text and the name of the model that wrote it. */
export interface Completion {
  text: string;
  /** The model that answered. */
  model: string;
}

/** A chat-completion model the analysts and the query builder talk to: an OpenAI-compatible endpoint, or a test double. */
export interface ChatModel {
  /** Sends the conversation and resolves to the reply; rejects with a {@link ModelError} when the model fails. */
  complete(request: CompletionRequest): Promise<Completion>;
}

/**
 * An upstream model failed (network, status, timeout, empty or unusable answer); `code` is stable.
 * `LLM_EMPTY_REPLY` also covers a reply that carries no usable JSON when JSON was asked for.
 * `status` is the HTTP status the endpoint answered, when there was one. Messages never carry the
 * API key or the endpoint's own error text.
 */
export class ModelError extends Error {
  constructor(
    readonly code: 'LLM_UPSTREAM_ERROR' | 'LLM_TIMEOUT' | 'LLM_EMPTY_REPLY',
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}
