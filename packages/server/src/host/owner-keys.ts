import { randomBytes } from 'node:crypto';
import { hashKey, type SecretBox } from '../secrets.js';
import type { ApiKeyRecord } from '../store/records.js';
import type { HostStore } from '../store/store.js';

/**
 * Owners on the payment model have no API key: an agent (its secret's id) owns the queries it creates,
 * a payer address owns its chat sessions. Each gets a key row of its own, so queries, executions,
 * notifications, sessions and the credits ledger work as for API keys. The row's hash is the hash of
 * `x402-owner:<owner>`, a string no API key can equal (keys have no `:`, see api-keys.ts), so the row
 * can never be used to authenticate; its HMAC secret is random and never shown.
 */
export class OwnerKeys {
  private readonly known = new Map<string, ApiKeyRecord>();

  constructor(
    private readonly store: HostStore,
    private readonly box: SecretBox,
  ) {}

  /** The key row of `agent:<agent id>` or `payer:<address>`, created on first use. */
  async of(owner: `agent:${string}` | `payer:${string}`): Promise<ApiKeyRecord> {
    const cached = this.known.get(owner);
    if (cached) return cached;
    const keyHash = hashKey(`x402-owner:${owner}`);
    let record = await this.store.keyByHash(keyHash);
    if (!record) {
      const now = new Date().toISOString();
      const create = this.store.createKey({
        keyHash,
        keyPrefix: owner.slice(0, 20),
        name: owner,
        email: null,
        project: 'x402',
        plan: 'pro',
        status: 'active',
        autoEnabled: true,
        hmacSecretSealed: this.box.seal(randomBytes(32).toString('base64url')),
        createdAt: now,
        updatedAt: now,
        expiresAt: null,
        scopes: [],
      });
      try {
        record = await create;
      } catch (error) {
        // Two first requests of one owner at once: the other one created it.
        record = await this.store.keyByHash(keyHash);
        if (!record) throw error;
      }
    }
    if (this.known.size > 10_000) this.known.clear();
    this.known.set(owner, record);
    return record;
  }
}
