import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One chat-completions request as the stub received it. */
export interface StubRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  response_format?: { type: string };
  max_tokens?: number;
  /** The Authorization header, when one was sent. */
  authorization?: string;
  /** The whole request body, as JSON text. */
  raw: string;
}

/** What the stub answers: a completion whose message is `content`, or an error status with a body. */
export interface StubReply {
  content?: string | null;
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering (a slow model). */
  delayMs?: number;
  finishReason?: string;
}

export type StubResponder = (request: StubRequest) => StubReply;

export interface OpenAiStubOptions {
  /** The bearer token the stub accepts; requests with another get 401 (whose body echoes the token sent, as a real endpoint may). */
  apiKey?: string;
  /** Model names the stub serves; others get 404 model_not_found. */
  models: string[];
}

/**
 * A local OpenAI-compatible endpoint on 127.0.0.1: `POST /v1/chat/completions` only. It checks the
 * bearer token and the model name, then answers from a script (one reply per request, in order) or,
 * when the script is empty, from the default responder. Every accepted request is kept in `requests`.
 */
export class OpenAiStub {
  readonly requests: StubRequest[] = [];
  private readonly script: Array<StubReply | StubResponder> = [];
  private responder: StubResponder = () => ({ content: 'ok' });
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: Server,
    private readonly options: OpenAiStubOptions,
    readonly baseURL: string,
  ) {}

  static async start(options: OpenAiStubOptions): Promise<OpenAiStub> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const stub = new OpenAiStub(server, options, `http://127.0.0.1:${port}/v1`);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => stub.handle(request, response));
    return stub;
  }

  /** Queues replies for the next requests, in order. */
  enqueue(...replies: Array<StubReply | StubResponder>): this {
    this.script.push(...replies);
    return this;
  }

  /** Forgets the received requests and the script left, and answers `ok` again. */
  reset(): this {
    this.requests.length = 0;
    this.script.length = 0;
    this.responder = () => ({ content: 'ok' });
    return this;
  }

  /** Answers requests when the script is empty. */
  respondWith(responder: StubResponder): this {
    this.responder = responder;
    return this;
  }

  /** The text of the last user message of request `index` (default the last request). */
  lastUserText(index = this.requests.length - 1): string {
    const messages = this.requests[index]?.messages ?? [];
    return [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
  }

  /** All message texts of request `index`, joined. */
  promptText(index = this.requests.length - 1): string {
    return (this.requests[index]?.messages ?? []).map((message) => message.content).join('\n');
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') return send(response, 404, { error: { message: 'no such route', code: 'not_found' } });
      const authorization = request.headers.authorization;
      if (this.options.apiKey !== undefined && authorization !== `Bearer ${this.options.apiKey}`) {
        const sent = (authorization ?? '').replace(/^Bearer /, '');
        return send(response, 401, { error: { message: `Incorrect API key provided: ${sent}.`, type: 'invalid_request_error', code: 'invalid_api_key' } });
      }
      let body: { model?: unknown; messages?: unknown; response_format?: { type: string }; max_tokens?: number };
      try {
        body = JSON.parse(raw) as typeof body;
      } catch {
        return send(response, 400, { error: { message: 'invalid JSON', code: 'invalid_json' } });
      }
      const model = typeof body.model === 'string' ? body.model : '';
      if (!this.options.models.includes(model)) return send(response, 404, { error: { message: `The model ${model} does not exist`, code: 'model_not_found' } });
      const received: StubRequest = { model, messages: Array.isArray(body.messages) ? (body.messages as StubRequest['messages']) : [], raw };
      if (body.response_format) received.response_format = body.response_format;
      if (typeof body.max_tokens === 'number') received.max_tokens = body.max_tokens;
      if (authorization !== undefined) received.authorization = authorization;
      this.requests.push(received);
      const next = this.script.shift() ?? this.responder;
      const reply = typeof next === 'function' ? next(received) : next;
      const answer = () => {
        if (response.destroyed) return;
        if (reply.status !== undefined && reply.status !== 200) return send(response, reply.status, reply.body ?? { error: { message: 'failure', code: 'server_error' } }, reply.headers);
        send(
          response,
          200,
          reply.body ?? {
            id: `chatcmpl-${this.requests.length}`,
            object: 'chat.completion',
            created: 1_767_571_200,
            model,
            choices: [{ index: 0, message: { role: 'assistant', content: reply.content ?? null }, finish_reason: reply.finishReason ?? 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          },
          reply.headers,
        );
      };
      if (reply.delayMs === undefined) return answer();
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        answer();
      }, reply.delayMs);
      this.timers.add(timer);
      request.socket.once('close', () => {
        clearTimeout(timer);
        this.timers.delete(timer);
      });
    });
  }
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}
