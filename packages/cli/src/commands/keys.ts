import { join } from 'node:path';
import { type ApiKeyRecord, configFromEnv, createApiKey, type HostStore, PgHostStore, redactDatabaseUrl, rotateApiKey, rotateWebhookSecret, SecretBox, SecretKeyMismatchError, SqliteStore } from '@eql/server';
import type { CliIo } from '../io.js';
import { UnusableInput } from '../io.js';
import { terminalText } from '../terminal-text.js';
import { tableLines } from '../table.js';

export interface KeysCreateFlags {
  name: string;
  /** free, pro, or a plan of EQL_PLANS_FILE. */
  plan: string;
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
  try {
    if (config.databaseUrl) return { config, store: await PgHostStore.open(config.databaseUrl, { box }), box, where: `PostgreSQL at ${redactDatabaseUrl(config.databaseUrl)}` };
    return { config, store: new SqliteStore(join(config.dataDir, 'eql.sqlite'), { box }), box, where: config.dataDir };
  } catch (error) {
    // Another key than the hosts': refused before anything is sealed that they could not open.
    if (error instanceof SecretKeyMismatchError) throw new UnusableInput(error.message);
    throw error;
  }
}

/**
 * `eql keys create --name NAME [--plan PLAN] [--scope ingest] [--json]` (free, pro, or a plan of EQL_PLANS_FILE): creates an API key in the host's store and
 * prints it with its HMAC secret and its webhook signing secret, once: only the key's hash is kept (the secrets are kept sealed).
 */
export async function keysCreateCommand(flags: KeysCreateFlags, io: CliIo): Promise<number> {
  if (flags.name.trim() === '') throw new UnusableInput('--name must not be empty');
  const { config, store, box, where } = await openHostStore(flags.dataDir);
  if (config.plans[flags.plan] === undefined) {
    await store.close();
    throw new UnusableInput(`--plan must be one of ${Object.keys(config.plans).join(', ')} (free, pro and the plans of EQL_PLANS_FILE), not "${flags.plan}"`);
  }
  try {
    const created = await createApiKey(store, box, { name: flags.name, plan: flags.plan, scopes: flags.scope ?? [] });
    if (flags.json) {
      io.stdout(
        `${JSON.stringify({ id: created.record.id, name: created.record.name, plan: created.record.plan, scopes: created.record.scopes, apiKey: created.key, hmacSecret: created.hmacSecret, webhookSecret: created.webhookSecret }, null, 2)}\n`,
      );
    } else {
      io.stdout(`${terminalText(`created key ${created.record.id} "${created.record.name}" (plan ${created.record.plan}) in ${where}`)}\n`);
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

/** Flags of the commands on one key (`--id`). */
export interface KeyIdFlags {
  id: string;
  json: boolean;
  dataDir?: string;
}

/** The key of `--id`, refused with a clear message when there is none. */
async function keyOfFlags(store: HostStore, idText: string): Promise<ApiKeyRecord> {
  const id = Number(idText);
  if (!Number.isInteger(id) || id <= 0) throw new UnusableInput('--id is the number of a key (eql keys list shows them)');
  const key = await store.keyById(id);
  if (!key) throw new UnusableInput(`there is no key ${id}`);
  return key;
}

/**
 * `eql keys list [--json]`: every key of the host's store, by id: its name, the first characters of its
 * value, plan, status, scopes and dates. Never a key's value, hash or secret.
 */
export async function keysListCommand(flags: { json: boolean; dataDir?: string }, io: CliIo): Promise<number> {
  const { store, where } = await openHostStore(flags.dataDir);
  try {
    const keys = (await store.listKeys()).map((key) => ({ id: key.id, name: key.name, key: key.keyPrefix, plan: key.plan, status: key.status, scopes: key.scopes, createdAt: key.createdAt, updatedAt: key.updatedAt }));
    if (flags.json) io.stdout(`${JSON.stringify(keys, null, 2)}\n`);
    else if (keys.length === 0) io.stdout(`no keys in ${where}\n`);
    else {
      const rows = [['ID', 'NAME', 'KEY', 'PLAN', 'STATUS', 'SCOPES', 'CREATED'], ...keys.map((key) => [String(key.id), key.name, key.key, key.plan, key.status, key.scopes.join(',') || '-', key.createdAt])];
      for (const line of tableLines(rows)) io.stdout(`${line}\n`);
    }
    return 0;
  } finally {
    await store.close();
  }
}

/** `eql keys revoke --id ID [--json]`: disables a key; its requests are refused (401) from then on. Its queries stay stored. */
export async function keysRevokeCommand(flags: KeyIdFlags, io: CliIo): Promise<number> {
  const { store } = await openHostStore(flags.dataDir);
  try {
    const key = await keyOfFlags(store, flags.id);
    await store.updateKey(key.id, { status: 'disabled' });
    if (flags.json) io.stdout(`${JSON.stringify({ id: key.id, status: 'disabled' }, null, 2)}\n`);
    else io.stdout(`key ${key.id} "${terminalText(key.name)}" (${terminalText(key.keyPrefix)}) is revoked: its requests are refused from now on\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * `eql keys rotate --id ID [--hmac-secret] [--json]`: gives a key a new value (printed once; same id, so
 * its queries stay its own), and with `--hmac-secret` a new HMAC secret too. The old value stops at once.
 */
export async function keysRotateCommand(flags: KeyIdFlags & { hmacSecret: boolean }, io: CliIo): Promise<number> {
  const { store, box } = await openHostStore(flags.dataDir);
  try {
    const key = await keyOfFlags(store, flags.id);
    const rotated = await rotateApiKey(store, box, key, { hmacSecret: flags.hmacSecret });
    if (flags.json) io.stdout(`${JSON.stringify({ id: key.id, apiKey: rotated.key, ...(rotated.hmacSecret ? { hmacSecret: rotated.hmacSecret } : {}), rotatedAt: rotated.rotatedAt }, null, 2)}\n`);
    else {
      io.stdout(`api key:        ${rotated.key}\n`);
      if (rotated.hmacSecret) io.stdout(`hmac secret:    ${rotated.hmacSecret}\n`);
      io.stdout(`key ${key.id} "${terminalText(key.name)}": the old value no longer works; store these now: they are not shown again\n`);
    }
    return 0;
  } finally {
    await store.close();
  }
}
