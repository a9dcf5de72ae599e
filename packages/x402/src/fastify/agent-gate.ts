import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AgentSecrets, type AgentIdentity } from '../agent-secrets.js';
import type { PaymentConfig } from '../payment-config.js';
import { PaymentHttpError } from '../payment-http-error.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `agentGate` on agent routes. */
    agent?: AgentIdentity;
  }
}

/**
 * The `onRequest` hook of agent routes (spec 4.5, 5.3): `x-svc-agent-secret` must be one of the
 * configured secrets (`AgentSecrets`), else a 400 `missing_agent_secret` / `invalid_agent_secret`.
 * Sets `request.agent`. Run it before a payment gate so an unauthorised agent spends no nonce.
 * Throws at construction when a secret is shorter than 16 characters.
 */
export function agentGate(config: Pick<PaymentConfig, 'agentSecrets'>) {
  const secrets = new AgentSecrets(config);
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const checked = secrets.identify(request.headers['x-svc-agent-secret']);
    if (!checked.ok) {
      done(new PaymentHttpError(checked.statusCode, checked.code, checked.message));
      return;
    }
    request.agent = checked.agent;
    done();
  };
}
