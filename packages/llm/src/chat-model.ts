/** A chat-completion model: an OpenAI-compatible endpoint, or a test double. */

export type Speed = 'fast' | 'expert';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface CompletionRequest {
  messages: ChatMessage[];
  /** `fast` uses the configured fast model, `expert` the expert one. */
  speed: Speed;
  /** `json` asks for a JSON object reply (response_format json_object). */
  responseFormat?: 'text' | 'json';
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface Completion {
  text: string;
  /** The model that answered. */
  model: string;
}

export interface ChatModel {
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
