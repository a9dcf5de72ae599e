import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer } from 'node:net';
import { describeLlmConfig, llmConfigFromEnv, ModelError, OpenAiChatModel, type OpenAiChatModelOptions } from '../src/index.js';
import { OpenAiStub } from './support/openai-stub.js';

const KEY = 'sk-test-4f1c9a7e2b8d4c6e9f0a1b2c3d4e5f60';
const user = (content: string) => [{ role: 'user' as const, content }];

let stub: OpenAiStub;

beforeAll(async () => {
  stub = await OpenAiStub.start({ apiKey: KEY, models: ['small-1', 'large-1'] });
});

afterAll(async () => {
  await stub.close();
});

afterEach(() => {
  stub.reset();
  vi.restoreAllMocks();
});

function model(overrides: Partial<OpenAiChatModelOptions> = {}): OpenAiChatModel {
  return new OpenAiChatModel({ baseURL: stub.baseURL, apiKey: KEY, fastModel: 'small-1', expertModel: 'large-1', timeoutMs: 5_000, maxRetries: 2, ...overrides });
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ModelError);
    return error as ModelError;
  }
  throw new Error('expected a ModelError');
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('OpenAiChatModel over a loopback OpenAI-compatible endpoint', () => {
  it('uses the fast model for fast and the expert model for expert, with the bearer key', async () => {
    stub.respondWith((request) => ({ content: `answer from ${request.model}` }));
    const fast = await model().complete({ messages: user('hi'), speed: 'fast' });
    const expert = await model().complete({ messages: user('hi'), speed: 'expert' });
    expect(fast).toEqual({ text: 'answer from small-1', model: 'small-1' });
    expect(expert).toEqual({ text: 'answer from large-1', model: 'large-1' });
    expect(stub.requests.map((request) => request.model)).toEqual(['small-1', 'large-1']);
    expect(stub.requests[0]?.authorization).toBe(`Bearer ${KEY}`);
    expect(stub.requests[0]?.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('sends response_format json_object in json mode only, and max_tokens', async () => {
    await model().complete({ messages: user('{}'), speed: 'fast', responseFormat: 'json', maxTokens: 77 });
    await model().complete({ messages: user('text'), speed: 'fast' });
    expect(stub.requests[0]?.response_format).toEqual({ type: 'json_object' });
    expect(stub.requests[0]?.max_tokens).toBe(77);
    expect(stub.requests[1]?.response_format).toBeUndefined();
  });

  it('sends no Authorization header when no key is configured', async () => {
    const open = await OpenAiStub.start({ models: ['local'] });
    try {
      const reply = await new OpenAiChatModel({ baseURL: open.baseURL, fastModel: 'local', expertModel: 'local', timeoutMs: 5_000, maxRetries: 0 }).complete({ messages: user('x'), speed: 'expert' });
      expect(reply.text).toBe('ok');
      expect(open.requests[0]?.authorization).toBeUndefined();
    } finally {
      await open.close();
    }
  });

  it('maps a refused key to LLM_UPSTREAM_ERROR 401 without repeating either key, and does not retry it', async () => {
    const wrong = 'sk-wrong-0000111122223333444455556666';
    const error = await failure(model({ apiKey: wrong }).complete({ messages: user('x'), speed: 'fast' }));
    expect(error.code).toBe('LLM_UPSTREAM_ERROR');
    expect(error.status).toBe(401);
    expect(error.message).toContain('HTTP 401');
    expect(error.message).toContain('invalid_api_key');
    expect(error.message).not.toContain(wrong);
    expect(error.message).not.toContain('sk-');
    expect(String(error.stack)).not.toContain(wrong);
  });

  it('never logs: the console stays silent through failures', async () => {
    const calls: unknown[][] = [];
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void calls.push(args));
    stub.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
    await failure(model({ maxRetryDelayMs: 5 }).complete({ messages: user('x'), speed: 'fast' }));
    await failure(model({ apiKey: 'sk-other-key-123456789' }).complete({ messages: user('x'), speed: 'fast' }));
    expect(calls).toEqual([]);
  });

  it('an unknown model is a 404 with the model named', async () => {
    const error = await failure(model({ fastModel: 'nope-7' }).complete({ messages: user('x'), speed: 'fast' }));
    expect(error).toMatchObject({ code: 'LLM_UPSTREAM_ERROR', status: 404 });
    expect(error.message).toContain('nope-7');
  });

  it('retries 429 after the Retry-After it is given, then succeeds', async () => {
    stub.enqueue({ status: 429, headers: { 'retry-after-ms': '20' } }, { status: 429, headers: { 'retry-after-ms': '20' } }, { content: 'third time' });
    const reply = await model().complete({ messages: user('x'), speed: 'fast' });
    expect(reply.text).toBe('third time');
    expect(stub.requests).toHaveLength(3);
  });

  it('gives up after maxRetries retries of a 500 and keeps the status', async () => {
    stub.enqueue({ status: 500 }, { status: 502 }, { content: 'too late' });
    const error = await failure(model({ maxRetries: 1, maxRetryDelayMs: 5 }).complete({ messages: user('x'), speed: 'fast' }));
    expect(error).toMatchObject({ code: 'LLM_UPSTREAM_ERROR', status: 502 });
    expect(stub.requests).toHaveLength(2);
  });

  it('caps a long Retry-After: with a 1 s budget, a 60 s Retry-After ends the call at once', async () => {
    stub.enqueue({ status: 429, headers: { 'retry-after': '60' } });
    const started = Date.now();
    const error = await failure(model({ timeoutMs: 1_000, maxRetryDelayMs: 60_000 }).complete({ messages: user('x'), speed: 'fast' }));
    expect(error).toMatchObject({ code: 'LLM_UPSTREAM_ERROR', status: 429 });
    expect(Date.now() - started).toBeLessThan(900);
    expect(stub.requests).toHaveLength(1);
  });

  it('does not retry a 400', async () => {
    stub.enqueue({ status: 400, body: { error: { message: `bad request with ${KEY}`, code: 'context_length_exceeded' } } });
    const error = await failure(model().complete({ messages: user('x'), speed: 'fast' }));
    expect(error).toMatchObject({ code: 'LLM_UPSTREAM_ERROR', status: 400 });
    expect(error.message).toContain('context_length_exceeded');
    expect(error.message).not.toContain(KEY);
    expect(stub.requests).toHaveLength(1);
  });

  it('a key-shaped upstream error code is not repeated', async () => {
    const key = 'sk_live_abcdef123456';
    const echo = await OpenAiStub.start({ apiKey: key, models: ['m'] });
    try {
      echo.enqueue({ status: 400, body: { error: { message: 'x', code: key } } });
      const error = await failure(new OpenAiChatModel({ baseURL: echo.baseURL, apiKey: key, fastModel: 'm', expertModel: 'm', timeoutMs: 5_000, maxRetries: 0 }).complete({ messages: user('x'), speed: 'fast' }));
      expect(echo.requests).toHaveLength(1);
      expect(error.status).toBe(400);
      expect(error.message).not.toContain(key);
    } finally {
      await echo.close();
    }
  });

  it('a reply slower than the budget is LLM_TIMEOUT, on time', async () => {
    stub.enqueue({ delayMs: 5_000, content: 'late' });
    const started = Date.now();
    const error = await failure(model({ timeoutMs: 300 }).complete({ messages: user('x'), speed: 'fast' }));
    const elapsed = Date.now() - started;
    expect(error.code).toBe('LLM_TIMEOUT');
    expect(error.message).toContain('300 ms');
    expect(elapsed).toBeGreaterThanOrEqual(250);
    // It gave up at its budget, not when the late reply came (5 s): no tighter clock bound, which a loaded machine would miss.
    expect(elapsed).toBeLessThan(5_000);
  });

  it('an empty reply is LLM_EMPTY_REPLY', async () => {
    stub.enqueue({ content: null, finishReason: 'length' }, { content: '   ' });
    const first = await failure(model().complete({ messages: user('x'), speed: 'fast' }));
    const second = await failure(model().complete({ messages: user('x'), speed: 'fast' }));
    expect(first.code).toBe('LLM_EMPTY_REPLY');
    expect(first.message).toContain('length');
    expect(second.code).toBe('LLM_EMPTY_REPLY');
  });

  it('an unreachable endpoint is LLM_UPSTREAM_ERROR naming the host, after the retries', async () => {
    const port = await closedPort();
    const error = await failure(
      new OpenAiChatModel({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: KEY, fastModel: 'a', expertModel: 'b', timeoutMs: 5_000, maxRetries: 1, maxRetryDelayMs: 5 }).complete({ messages: user('x'), speed: 'fast' }),
    );
    expect(error.code).toBe('LLM_UPSTREAM_ERROR');
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).not.toContain(KEY);
  });

  it('a caller abort ends the call', async () => {
    stub.enqueue({ delayMs: 5_000, content: 'late' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await failure(model().complete({ messages: user('x'), speed: 'fast', signal: controller.signal }));
    expect(error.message).toContain('cancelled');
  });
});

describe('llmConfigFromEnv', () => {
  it('is undefined with neither a base URL nor a key', () => {
    expect(llmConfigFromEnv({})).toBeUndefined();
    expect(llmConfigFromEnv({ EQL_LLM_BASE_URL: ' ', EQL_LLM_API_KEY: '', EQL_LLM_FAST_MODEL: 'x' })).toBeUndefined();
  });

  it('reads every variable', () => {
    expect(
      llmConfigFromEnv({ EQL_LLM_BASE_URL: 'http://127.0.0.1:9/v1', EQL_LLM_API_KEY: KEY, EQL_LLM_FAST_MODEL: 'f', EQL_LLM_EXPERT_MODEL: 'e', EQL_LLM_TIMEOUT_MS: '1234', EQL_LLM_MAX_RETRIES: '0' }),
    ).toEqual({ baseURL: 'http://127.0.0.1:9/v1', apiKey: KEY, fastModel: 'f', expertModel: 'e', timeoutMs: 1234, maxRetries: 0 });
  });

  it('defaults: one model name serves both speeds; none gives the defaults', () => {
    expect(llmConfigFromEnv({ EQL_LLM_API_KEY: KEY })).toEqual({ apiKey: KEY, fastModel: 'gpt-4o-mini', expertModel: 'gpt-4o', timeoutMs: 30_000, maxRetries: 2 });
    expect(llmConfigFromEnv({ EQL_LLM_BASE_URL: 'http://h/v1', EQL_LLM_EXPERT_MODEL: 'only' })).toMatchObject({ fastModel: 'only', expertModel: 'only' });
  });

  it('refuses malformed values, naming the variable and never the key', () => {
    expect(() => llmConfigFromEnv({ EQL_LLM_API_KEY: KEY, EQL_LLM_TIMEOUT_MS: 'soon' })).toThrow(/EQL_LLM_TIMEOUT_MS/);
    expect(() => llmConfigFromEnv({ EQL_LLM_API_KEY: KEY, EQL_LLM_MAX_RETRIES: '9' })).toThrow(/EQL_LLM_MAX_RETRIES/);
    expect(() => llmConfigFromEnv({ EQL_LLM_API_KEY: KEY, EQL_LLM_BASE_URL: 'ftp://x' })).toThrow(/EQL_LLM_BASE_URL/);
    try {
      llmConfigFromEnv({ EQL_LLM_API_KEY: KEY, EQL_LLM_BASE_URL: 'not a url' });
    } catch (error) {
      expect(String(error)).not.toContain(KEY);
    }
  });

  it('describes the configuration without the key or URL credentials', () => {
    const text = describeLlmConfig({ baseURL: 'https://user:secret@llm.example.com/v1/', apiKey: KEY, fastModel: 'f', expertModel: 'e', timeoutMs: 10, maxRetries: 1 });
    expect(text).toContain('https://llm.example.com/v1');
    expect(text).toContain('key set');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('secret');
    expect(describeLlmConfig(undefined)).toContain('offline analyst');
  });
});
