import { randomBytes } from 'node:crypto';
import type { MaybePromise } from '@eql/core';
import type { Plan } from '../config.js';
import { KEY_PATTERN, MIN_HMAC_SECRET_LENGTH } from './key-format.js';
import { hashKey, newApiKey, safeEqual, type SecretBox } from '../secrets.js';
import type { ApiKeyRecord, KeyScope } from '../store/records.js';
import type { HostStore } from '../store/store.js';

/** A key just created ({@link createApiKey}): its stored record, and the key and secrets to hand to its owner. */
export interface CreatedKey {
  record: ApiKeyRecord;
  /** Shown once: only its hash is stored. */
  key: string;
  /** Shown once: stored sealed (it must be recoverable to verify signatures). */
  hmacSecret: string;
  /** Shown once: signs the webhooks of the key's queries (`whsec_…`); stored sealed. */
  webhookSecret: string;
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
  /** A chosen webhook signing secret; a new `whsec_…` by default. */
  webhookSecret?: string;
  autoEnabled?: boolean;
  /** Extra permissions, such as `ingest`. */
  scopes?: KeyScope[];
}


/**
 * A new webhook signing secret in the Standard Webhooks form: `whsec_` and the base64 of 32 random
 * bytes (those bytes are the HMAC key; Standard Webhooks libraries take the secret as it is).
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** Creates an API key with its HMAC secret and its webhook signing secret. */
export async function createApiKey(store: HostStore, box: SecretBox, options: KeyOptions): Promise<CreatedKey> {
  const generated = newApiKey();
  const key = options.key ?? generated.key;
  const hmacSecret = options.hmacSecret ?? generated.hmacSecret;
  const webhookSecret = options.webhookSecret ?? newWebhookSecret();
  if (webhookSecret.length < 16) throw new Error('a webhook secret has at least 16 characters');
  if (!KEY_PATTERN.test(key)) throw new Error('an API key is 16 to 128 letters, digits, "_", "." or "-"');
  if (hmacSecret.length < MIN_HMAC_SECRET_LENGTH) throw new Error(`an HMAC secret has at least ${MIN_HMAC_SECRET_LENGTH} characters`);
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
    webhookSecretSealed: box.seal(webhookSecret),
    previousWebhookSecretSealed: null,
    previousWebhookSecretUntil: null,
  });
  return { record, key, hmacSecret, webhookSecret };
}

/** Longest grace period of a rotated webhook secret: 7 days. */
export const MAX_WEBHOOK_SECRET_GRACE_SECONDS = 7 * 86_400;
/** Grace period of a rotated webhook secret unless told: 24 hours. */
export const DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS = 86_400;

/** The answer of a rotation ({@link rotateWebhookSecret}). */
export interface RotatedWebhookSecret {
  /** Shown once: the new secret, which signs every webhook from now on. */
  webhookSecret: string;
  rotatedAt: string;
  /** Until when the previous secret signs too (ISO 8601), or null when it stopped at once. */
  previousValidUntil: string | null;
}

/**
 * Gives a key a new webhook signing secret. For `graceSeconds` (default 24 hours, at most 7 days; 0
 * ends it at once) the previous secret signs too: each delivery carries both signatures
 * (`webhook-signature: v1,<new> v1,<previous>`), so receivers switch over without losing a delivery.
 * A secret older than the previous one stops signing.
 */
export async function rotateWebhookSecret(
  store: HostStore,
  box: SecretBox,
  key: ApiKeyRecord,
  options: { graceSeconds?: number; now?: number } = {},
): Promise<RotatedWebhookSecret> {
  const graceSeconds = options.graceSeconds ?? DEFAULT_WEBHOOK_SECRET_GRACE_SECONDS;
  if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_WEBHOOK_SECRET_GRACE_SECONDS) {
    throw new RangeError(`the grace period is a whole number of seconds from 0 to ${MAX_WEBHOOK_SECRET_GRACE_SECONDS}`);
  }
  const now = options.now ?? Date.now();
  const webhookSecret = newWebhookSecret();
  const keep = graceSeconds > 0 && key.webhookSecretSealed ? key.webhookSecretSealed : null;
  const previousValidUntil = keep ? new Date(now + graceSeconds * 1000).toISOString() : null;
  const rotatedAt = new Date(now).toISOString();
  await store.updateKey(key.id, { webhookSecretSealed: box.seal(webhookSecret), previousWebhookSecretSealed: keep, previousWebhookSecretUntil: previousValidUntil, updatedAt: rotatedAt });
  return { webhookSecret, rotatedAt, previousValidUntil };
}

/** The answer of {@link rotateApiKey}: the new key (shown once) and, when asked for, a new HMAC secret. */
export interface RotatedApiKey {
  key: string;
  keyPrefix: string;
  hmacSecret?: string;
  rotatedAt: string;
}

/**
 * Gives a key a new value (same id: its queries, drafts, credits and exchanges stay its own); the old
 * value stops authenticating at once on this host, on others within their key cache (a second). With
 * `hmacSecret` a new HMAC secret too (the old one stops signing at once).
 */
export async function rotateApiKey(store: HostStore, box: SecretBox, key: ApiKeyRecord, options: { hmacSecret?: boolean } = {}): Promise<RotatedApiKey> {
  const generated = newApiKey();
  const rotatedAt = new Date().toISOString();
  const keyPrefix = `${generated.key.slice(0, 8)}…`;
  await store.updateKey(key.id, { keyHash: hashKey(generated.key), keyPrefix, ...(options.hmacSecret ? { hmacSecretSealed: box.seal(generated.hmacSecret) } : {}), updatedAt: rotatedAt });
  return { key: generated.key, keyPrefix, ...(options.hmacSecret ? { hmacSecret: generated.hmacSecret } : {}), rotatedAt };
}

/**
 * Makes sure the key given at boot (EQL_API_KEY) exists, with this HMAC secret when one is given
 * (EQL_HMAC_SECRET; otherwise a new one is generated and returned so it can be shown once).
 */
export async function ensureKey(
  store: HostStore,
  box: SecretBox,
  options: { key: string; hmacSecret?: string; plan: Plan; name?: string; scopes?: KeyScope[] },
): Promise<{ record: ApiKeyRecord; created: boolean; hmacSecret?: string; webhookSecret?: string }> {
  const existing = await store.keyByHash(hashKey(options.key));
  if (!existing) {
    const created = await createApiKey(store, box, { name: options.name ?? 'seed', plan: options.plan, key: options.key, ...(options.scopes ? { scopes: options.scopes } : {}), ...(options.hmacSecret ? { hmacSecret: options.hmacSecret } : {}) });
    return { record: created.record, created: true, webhookSecret: created.webhookSecret, ...(options.hmacSecret ? {} : { hmacSecret: created.hmacSecret }) };
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
