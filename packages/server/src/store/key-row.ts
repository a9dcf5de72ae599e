import type { ApiKeyRecord } from './records.js';

/** The columns an API key is inserted with, in the order of {@link apiKeyValues}. */
export const API_KEY_COLUMNS =
  'key_hash, key_prefix, name, email, project, plan, status, auto_enabled, hmac_secret_sealed, created_at, updated_at, expires_at, scopes, webhook_secret_sealed, previous_webhook_secret_sealed, previous_webhook_secret_until';

/** The values of a new API key's row, in the order of {@link API_KEY_COLUMNS} (both stores insert keys this way). */
export function apiKeyValues(key: Omit<ApiKeyRecord, 'id'>): unknown[] {
  return [
    key.keyHash,
    key.keyPrefix,
    key.name,
    key.email,
    key.project,
    key.plan,
    key.status,
    key.autoEnabled ? 1 : 0,
    key.hmacSecretSealed,
    key.createdAt,
    key.updatedAt,
    key.expiresAt,
    key.scopes.join(' '),
    key.webhookSecretSealed ?? null,
    key.previousWebhookSecretSealed ?? null,
    key.previousWebhookSecretUntil ?? null,
  ];
}
