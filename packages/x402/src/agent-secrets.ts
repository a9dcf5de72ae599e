import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { MIN_AGENT_SECRET_LENGTH, type PaymentConfig } from './payment-config.js';

/** The agent behind a request on an agent route: owns the queries it creates. */
export interface AgentIdentity {
  /** `agent_` and 24 hex digits: stable per secret, and the secret cannot be recovered from it. */
  id: string;
}

/** The header of the agent secret (spec 5.3). */
export const AGENT_SECRET_HEADER = 'x-svc-agent-secret';

/** The stable, non-reversible identifier of an agent secret (HMAC-SHA-256 under a fixed label, truncated). */
export function agentId(secret: string): string {
  return `agent_${createHmac('sha256', 'eql x402 agent id').update(secret, 'utf8').digest('hex').slice(0, 24)}`;
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Who presented a secret: the agent, or why not (spec 4.5 answers these with 400). */
export type AgentCheck = { ok: true; agent: AgentIdentity } | { ok: false; statusCode: 400; code: 'missing_agent_secret' | 'invalid_agent_secret'; message: string };

/**
 * The agent secrets of a host (spec 4.5, 5.3), without any web framework: `identify` takes the value of
 * the `x-svc-agent-secret` header. Secrets are compared as SHA-256 digests with `timingSafeEqual`
 * (equal lengths by construction, so neither the length nor the content of a secret leaks through
 * timing), against every configured secret without stopping early. Throws at construction when a
 * secret is shorter than 16 characters.
 */
export class AgentSecrets {
  private readonly known: ReadonlyArray<{ digest: Buffer; id: string }>;

  constructor(config: Pick<PaymentConfig, 'agentSecrets'>) {
    for (const secret of config.agentSecrets) {
      if (secret.length < MIN_AGENT_SECRET_LENGTH) throw new Error(`an agent secret has at least ${MIN_AGENT_SECRET_LENGTH} characters`);
    }
    this.known = config.agentSecrets.map((secret) => ({ digest: digest(secret), id: agentId(secret) }));
  }

  /** The agent of a header value (the first one when repeated). */
  identify(header: string | string[] | undefined): AgentCheck {
    const presented = Array.isArray(header) ? header[0] : header;
    if (presented === undefined || presented === '') {
      return { ok: false, statusCode: 400, code: 'missing_agent_secret', message: `this route is for agents: send the agent secret in the ${AGENT_SECRET_HEADER} header` };
    }
    const candidate = digest(presented);
    let match: string | undefined;
    for (const entry of this.known) {
      if (timingSafeEqual(candidate, entry.digest) && match === undefined) match = entry.id;
    }
    if (match === undefined) {
      const why = this.known.length === 0 ? 'this host has no agent secret configured (EQL_AGENT_SECRET)' : 'the agent secret is not valid';
      return { ok: false, statusCode: 400, code: 'invalid_agent_secret', message: why };
    }
    return { ok: true, agent: { id: match } };
  }
}

