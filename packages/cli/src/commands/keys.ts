import { join } from 'node:path';
import { configFromEnv, createApiKey, SecretBox, SqliteStore } from '@eql/server';
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
 * `eql keys create --name NAME [--plan free|pro] [--scope ingest] [--json]`: creates an API key in the host's store and
 * prints it with its HMAC secret, once: only the key's hash is kept (the secret is kept sealed).
 */
export async function keysCreateCommand(flags: KeysCreateFlags, io: CliIo): Promise<number> {
  const config = configFromEnv(process.env, flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {});
  if (flags.name.trim() === '') throw new UnusableInput('--name must not be empty');
  const store = new SqliteStore(join(config.dataDir, 'eql.sqlite'));
  try {
    const box = config.secretKey ? SecretBox.fromKey(config.secretKey) : SecretBox.fromFile(join(config.dataDir, 'secret.key'));
    const created = await createApiKey(store, box, { name: flags.name, plan: flags.plan, scopes: flags.scope ?? [] });
    if (flags.json) {
      io.stdout(`${JSON.stringify({ id: created.record.id, name: created.record.name, plan: created.record.plan, scopes: created.record.scopes, apiKey: created.key, hmacSecret: created.hmacSecret }, null, 2)}\n`);
    } else {
      io.stdout(`created key ${created.record.id} "${created.record.name}" (plan ${created.record.plan}) in ${config.dataDir}\n`);
      io.stdout(`api key:     ${created.key}\n`);
      io.stdout(`hmac secret: ${created.hmacSecret}\n`);
      io.stdout('store them now: they are not shown again\n');
    }
    return 0;
  } finally {
    store.close();
  }
}
