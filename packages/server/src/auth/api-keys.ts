import type { MaybePromise } from '@eql/core';
import type { Plan } from '../config.js';
import { hashKey, newApiKey, safeEqual, type SecretBox } from '../secrets.js';
import type { ApiKeyRecord, KeyScope } from '../store/records.js';
import type { HostStore } from '../store/store.js';

/** A key just created ({@link createApiKey}): its stored record, and the key and HMAC secret to hand to its owner. */
export interface CreatedKey {
  record: ApiKeyRecord;
  /** Shown once: only its hash is stored. */
  key: string;
  /** Shown once: stored sealed (it must be recoverable to verify signatures). */
  hmacSecret: string;
}

/** What a new key is: its name, plan (default `free`), owner details, optional chosen key and HMAC secret, and scopes. */
export interface KeyOptions {
  name: string;
  plan?: Plan;
  email?: string;
  project?: string;
  /** A chosen key value (EQL_API_KEY); random by default. */
  key?: string;
  hmacSecret?: string;
  autoEnabled?: boolean;
  /** Extra permissions, such as `ingest`. */
  scopes?: KeyScope[];
}

const KEY_PATTERN = /^[A-Za-z0-9_.-]{16,128}$/;

/** Creates an API key with its HMAC secret. */
export async function createApiKey(store: HostStore, box: SecretBox, options: KeyOptions): Promise<CreatedKey> {
  const generated = newApiKey();
  const key = options.key ?? generated.key;
  const hmacSecret = options.hmacSecret ?? generated.hmacSecret;
  if (!KEY_PATTERN.test(key)) throw new Error('an API key is 16 to 128 letters, digits, "_", "." or "-"');
  if (hmacSecret.length < 16) throw new Error('an HMAC secret has at least 16 characters');
  const now = new Date().toISOString();
  const record = await store.createKey({
    keyHash: hashKey(key),
    keyPrefix: `${key.slice(0, 8)}…`,
    name: options.name,
    email: options.email ?? null,
    project: options.project ?? null,
    plan: options.plan ?? 'free',
    status: 'active',
    autoEnabled: options.autoEnabled ?? true,
    hmacSecretSealed: box.seal(hmacSecret),
    createdAt: now,
    updatedAt: now,
    expiresAt: null,
    scopes: options.scopes ?? [],
  });
  return { record, key, hmacSecret };
}

/**
 * Makes sure the key given at boot (EQL_API_KEY) exists, with this HMAC secret when one is given
 * (EQL_HMAC_SECRET; otherwise a new one is generated and returned so it can be shown once).
 */
export async function ensureKey(
  store: HostStore,
  box: SecretBox,
  options: { key: string; hmacSecret?: string; plan: Plan; name?: string; scopes?: KeyScope[] },
): Promise<{ record: ApiKeyRecord; created: boolean; hmacSecret?: string }> {
  const existing = await store.keyByHash(hashKey(options.key));
  if (!existing) {
    const created = await createApiKey(store, box, { name: options.name ?? 'seed', plan: options.plan, key: options.key, ...(options.scopes ? { scopes: options.scopes } : {}), ...(options.hmacSecret ? { hmacSecret: options.hmacSecret } : {}) });
    return { record: created.record, created: true, ...(options.hmacSecret ? {} : { hmacSecret: created.hmacSecret }) };
  }
  if (options.hmacSecret !== undefined && !safeEqual(box.open(existing.hmacSecretSealed), options.hmacSecret)) {
    await store.updateKey(existing.id, { hmacSecretSealed: box.seal(options.hmacSecret) });
  }
  if (existing.plan !== options.plan) await store.updateKey(existing.id, { plan: options.plan });
  const missing = (options.scopes ?? []).filter((scope) => !existing.scopes.includes(scope));
  if (missing.length > 0) await store.updateKey(existing.id, { scopes: [...existing.scopes, ...missing] });
  return { record: (await store.keyById(existing.id)) ?? existing, created: false };
}

/** Hashes of recently presented keys: a client sends the same key on every request. */
const hashes = new Map<string, string>();

/** The key record of a presented key, if it exists. Lookup by hash; the hash comparison is the index's. */
export function findKey(store: HostStore, presented: string): MaybePromise<ApiKeyRecord | undefined> {
  if (!KEY_PATTERN.test(presented)) return undefined;
  let hash = hashes.get(presented);
  if (hash === undefined) {
    hash = hashKey(presented);
    if (hashes.size >= 10_000) hashes.clear();
    hashes.set(presented, hash);
  }
  return store.keyByHash(hash);
}
