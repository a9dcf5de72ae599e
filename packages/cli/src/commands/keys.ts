import { join } from 'node:path';
import { configFromEnv, createApiKey, type HostStore, PgHostStore, redactDatabaseUrl, rotateWebhookSecret, SecretBox, SqliteStore } from '@eql/server';
import type { CliIo } from '../io.js';
import { UnusableInput } from '../io.js';

export interface KeysCreateFlags {
  name: string;
  plan: 'free' | 'pro';
  json: boolean;
  dataDir?: string;
  scope?: Array<'ingest'>;
}

/**
 * The host's store and secret box: PostgreSQL when EQL_DATABASE_URL is set (the hosts of a cluster share
 * it; set their EQL_SECRET_KEY too), else SQLite in the data directory. The box seals secrets; the store
 * needs it to migrate.
 */
async function openHostStore(dataDir: string | undefined): Promise<{ config: ReturnType<typeof configFromEnv>; store: HostStore; box: SecretBox; where: string }> {
  const config = configFromEnv(process.env, dataDir !== undefined ? { dataDir } : {});
  const box = config.secretKey ? SecretBox.fromKey(config.secretKey) : SecretBox.fromFile(join(config.dataDir, 'secret.key'));
  if (config.databaseUrl) return { config, store: await PgHostStore.open(config.databaseUrl, { box }), box, where: `PostgreSQL at ${redactDatabaseUrl(config.databaseUrl)}` };
  return { config, store: new SqliteStore(join(config.dataDir, 'eql.sqlite'), { box }), box, where: config.dataDir };
}

/**
 * `eql keys create --name NAME [--plan free|pro] [--scope ingest] [--json]`: creates an API key in the host's store and
 * prints it with its HMAC secret and its webhook signing secret, once: only the key's hash is kept (the secrets are kept sealed).
 */
export async function keysCreateCommand(flags: KeysCreateFlags, io: CliIo): Promise<number> {
  if (flags.name.trim() === '') throw new UnusableInput('--name must not be empty');
  const { store, box, where } = await openHostStore(flags.dataDir);
  try {
    const created = await createApiKey(store, box, { name: flags.name, plan: flags.plan, scopes: flags.scope ?? [] });
    if (flags.json) {
      io.stdout(
        `${JSON.stringify({ id: created.record.id, name: created.record.name, plan: created.record.plan, scopes: created.record.scopes, apiKey: created.key, hmacSecret: created.hmacSecret, webhookSecret: created.webhookSecret }, null, 2)}\n`,
      );
    } else {
      io.stdout(`created key ${created.record.id} "${created.record.name}" (plan ${created.record.plan}) in ${where}\n`);
      io.stdout(`api key:        ${created.key}\n`);
      io.stdout(`hmac secret:    ${created.hmacSecret}\n`);
      io.stdout(`webhook secret: ${created.webhookSecret}\n`);
      io.stdout('store them now: they are not shown again\n');
    }
    return 0;
  } finally {
    await store.close();
  }
}

export interface KeysRotateWebhookSecretFlags {
  id: string;
  grace?: string;
  json: boolean;
  dataDir?: string;
}

/**
 * `eql keys rotate-webhook-secret --id ID [--grace SECONDS] [--json]`: gives a key a new webhook signing
 * secret and prints it once; the previous one signs too for the grace period (default 86400 s).
 */
export async function keysRotateWebhookSecretCommand(flags: KeysRotateWebhookSecretFlags, io: CliIo): Promise<number> {
  const id = Number(flags.id);
  if (!Number.isInteger(id) || id <= 0) throw new UnusableInput('--id is the number of a key (eql keys create prints it)');
  const grace = flags.grace === undefined ? undefined : Number(flags.grace);
  if (grace !== undefined && (!Number.isInteger(grace) || grace < 0 || grace > 604_800)) throw new UnusableInput('--grace is a whole number of seconds from 0 to 604800');
  const { store, box } = await openHostStore(flags.dataDir);
  try {
    const key = await store.keyById(id);
    if (!key) throw new UnusableInput(`there is no key ${id}`);
    const rotated = await rotateWebhookSecret(store, box, key, grace === undefined ? {} : { graceSeconds: grace });
    if (flags.json) io.stdout(`${JSON.stringify({ id, ...rotated }, null, 2)}\n`);
    else {
      io.stdout(`webhook secret: ${rotated.webhookSecret}\n`);
      io.stdout(rotated.previousValidUntil ? `the previous secret signs too until ${rotated.previousValidUntil}\n` : 'the previous secret no longer signs\n');
      io.stdout('store it now: it is not shown again\n');
    }
    return 0;
  } finally {
    await store.close();
  }
}
