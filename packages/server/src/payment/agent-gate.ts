import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from '../http/errors.js';
import { MIN_AGENT_SECRET_LENGTH, type PaymentConfig } from './payment-config.js';

/** The agent behind a request on an agent route: owns the queries it creates. */
export interface AgentIdentity {
  /** `agent_` and 24 hex digits: stable per secret, and the secret cannot be recovered from it. */
  id: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `agentGate` on agent routes. */
    agent?: AgentIdentity;
  }
}

/** The header of the agent secret (spec 5.3). */
export const AGENT_SECRET_HEADER = 'x-svc-agent-secret';

/** The stable, non-reversible identifier of an agent secret (HMAC-SHA-256 under a fixed label, truncated). */
export function agentId(secret: string): string {
  return `agent_${createHmac('sha256', 'eql x402 agent id').update(secret, 'utf8').digest('hex').slice(0, 24)}`;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * The `onRequest` hook of agent routes (spec 4.5, 5.3): `x-svc-agent-secret` must be one of the
 * configured secrets, else 400 (spec 4.5 lists 400 for these routes) `missing_agent_secret` / `invalid_agent_secret`. Secrets are compared
 * as SHA-256 digests with `timingSafeEqual` (equal lengths by construction, so neither the length nor
 * the content of a secret leaks through timing), against every configured secret without stopping
 * early. Sets `request.agent`. Run it before a payment gate so an unauthorised agent spends no nonce.
 * Throws at construction when a secret is shorter than 16 characters.
 */
export function agentGate(config: Pick<PaymentConfig, 'agentSecrets'>) {
  for (const secret of config.agentSecrets) {
    if (secret.length < MIN_AGENT_SECRET_LENGTH) throw new Error(`an agent secret has at least ${MIN_AGENT_SECRET_LENGTH} characters`);
  }
  const known = config.agentSecrets.map((secret) => ({ digest: digest(secret), id: agentId(secret) }));
  return (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const header = request.headers[AGENT_SECRET_HEADER];
    const presented = Array.isArray(header) ? header[0] : header;
    if (presented === undefined || presented === '') {
      done(new ApiError(400, 'missing_agent_secret', `this route is for agents: send the agent secret in the ${AGENT_SECRET_HEADER} header`));
      return;
    }
    const candidate = digest(presented);
    let match: string | undefined;
    for (const entry of known) {
      if (timingSafeEqual(candidate, entry.digest) && match === undefined) match = entry.id;
    }
    if (match === undefined) {
      const why = known.length === 0 ? 'this host has no agent secret configured (EQL_AGENT_SECRET)' : 'the agent secret is not valid';
      done(new ApiError(400, 'invalid_agent_secret', why));
      return;
    }
    request.agent = { id: match };
    done();
  };
}
