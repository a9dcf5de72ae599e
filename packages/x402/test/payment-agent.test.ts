import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleError } from './support/error-handler.js';
import { agentId } from '../src/index.js';
import { agentGate } from '../src/fastify/index.js';

const SECRETS = ['current-agent-secret-0123456789', 'previous-agent-secret-0123456789'];

async function appWith(secrets: string[]): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.setErrorHandler(handleError);
  app.post('/agent', { onRequest: agentGate({ agentSecrets: secrets }) }, (request) => ({ agent: request.agent?.id }));
  await app.ready();
  return app;
}

let app: FastifyInstance;
beforeAll(async () => {
  app = await appWith(SECRETS);
});
afterAll(() => app.close());

const call = (headers: Record<string, string | string[]>) => app.inject({ method: 'POST', url: '/agent', headers });

describe('agent secret', () => {
  it('accepts every configured secret (rotation) and names the agent by a stable id of its secret', async () => {
    const first = await call({ 'x-svc-agent-secret': SECRETS[0] ?? '' });
    const second = await call({ 'x-svc-agent-secret': SECRETS[1] ?? '' });
    expect(first.json()).toEqual({ agent: agentId(SECRETS[0] ?? '') });
    expect(second.json()).toEqual({ agent: agentId(SECRETS[1] ?? '') });
    expect(first.json<{ agent: string }>().agent).not.toBe(second.json<{ agent: string }>().agent);
    expect((await call({ 'x-svc-agent-secret': SECRETS[0] ?? '' })).json()).toEqual(first.json());
  });

  it('the id does not reveal the secret', () => {
    const id = agentId(SECRETS[0] ?? '');
    expect(id).toMatch(/^agent_[0-9a-f]{24}$/);
    expect(id).not.toContain('current');
  });

  it('400 missing_agent_secret without the header; 400 invalid_agent_secret for a wrong one of any length', async () => {
    expect((await call({})).json()).toEqual({ success: false, error: { code: 'missing_agent_secret', message: expect.any(String) as unknown } });
    for (const wrong of ['x', `${SECRETS[0] ?? ''}x`, (SECRETS[0] ?? '').slice(0, -1), (SECRETS[0] ?? '').toUpperCase(), 'é'.repeat(40)]) {
      const response = await call({ 'x-svc-agent-secret': wrong });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, error: { code: 'invalid_agent_secret' } });
    }
  });

  it('any other header value is a 400, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 200 }), async (value) => {
        fc.pre(!SECRETS.includes(value.trim()));
        const response = await call({ 'x-svc-agent-secret': value });
        expect(response.statusCode).toBe(400);
        expect(['missing_agent_secret', 'invalid_agent_secret']).toContain(response.json<{ error: { code: string } }>().error.code);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses to start with a guessable secret', () => {
    expect(() => agentGate({ agentSecrets: ['short-secret'] })).toThrow('16 characters');
  });

  it('a host without agent secrets refuses every agent and says why', async () => {
    const closed = await appWith([]);
    const response = await closed.inject({ method: 'POST', url: '/agent', headers: { 'x-svc-agent-secret': SECRETS[0] ?? '' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: { code: 'invalid_agent_secret', message: expect.stringContaining('EQL_AGENT_SECRET') as unknown } });
    await closed.close();
  });
});
