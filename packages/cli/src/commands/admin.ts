import { join, resolve } from 'node:path';
import { backupSqliteHost, configFromEnv, migrateSqlite, type MigrationState, pgMigrations, restoreSqliteHost, sqliteMigrationStates } from '@eql/server';
import type { CliIo } from '../io.js';
import { UnusableInput } from '../io.js';
import { terminalText } from '../terminal-text.js';

/** The host configuration of this environment, with `--data-dir` over EQL_DATA_DIR; a refused one exits 2. */
function hostConfig(dataDir: string | undefined) {
  try {
    return configFromEnv(process.env, dataDir !== undefined ? { dataDir: resolve(dataDir) } : {});
  } catch (error) {
    throw new UnusableInput((error as Error).message);
  }
}

const PG_BACKUP =
  'the store is on PostgreSQL (EQL_DATABASE_URL): back it up with pg_dump -Fc (and restore with pg_restore), see docs/operations.md, "Backups"; keep the secret key (EQL_SECRET_KEY or its file) with the dump';

/** `eql admin backup --to FILE`: the SQLite host's store, market data and secret key, consistent while the host runs. */
export function adminBackupCommand(flags: { to: string; dataDir?: string; force: boolean; json: boolean }, io: CliIo): number {
  const config = hostConfig(flags.dataDir);
  if (config.databaseUrl) throw new UnusableInput(PG_BACKUP);
  let result;
  try {
    result = backupSqliteHost(config.dataDir, resolve(flags.to), { force: flags.force, secretKeyInEnvironment: config.secretKey !== undefined });
  } catch (error) {
    throw new UnusableInput((error as Error).message);
  }
  if (flags.json) {
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  io.stdout(`${terminalText(`backed up ${config.dataDir}: ${result.queries} queries, ${result.keys} keys, ${result.bytes} bytes`)}\n`);
  io.stdout(`${terminalText(`store:       ${result.store}`)}\n`);
  if (result.market) io.stdout(`${terminalText(`market data: ${result.market}`)}\n`);
  if (result.secretKey) io.stdout(`${terminalText(`secret key:  ${result.secretKey} (keep it as safe as the key itself: it opens every sealed secret)`)}\n`);
  else io.stdout('secret key:  in EQL_SECRET_KEY, not copied: keep it with the backup, without it the sealed secrets are lost\n');
  return 0;
}

/** `eql admin restore --from FILE`: puts a backup in place (the host stopped), migrated and proven to open with its key. */
export function adminRestoreCommand(flags: { from: string; dataDir?: string; force: boolean; json: boolean }, io: CliIo): number {
  const config = hostConfig(flags.dataDir);
  if (config.databaseUrl) throw new UnusableInput(PG_BACKUP);
  let result;
  try {
    result = restoreSqliteHost(resolve(flags.from), config.dataDir, { force: flags.force, ...(config.secretKey ? { secretKey: config.secretKey } : {}) });
  } catch (error) {
    throw new UnusableInput((error as Error).message);
  }
  if (flags.json) {
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  io.stdout(`${terminalText(`restored ${result.queries} queries and ${result.keys} keys into ${result.dataDir}${result.secretKeyRestored ? ', with the backup\'s secret key' : ''}`)}\n`);
  for (const aside of result.setAside) io.stdout(`${terminalText(`set aside: ${aside}`)}\n`);
  return 0;
}

function printMigrations(states: MigrationState[], where: string, io: CliIo, json: boolean, applied: number[]): void {
  if (json) {
    io.stdout(`${JSON.stringify({ store: where, applied, migrations: states }, null, 2)}\n`);
    return;
  }
  const pending = states.filter((state) => state.appliedAt === undefined);
  if (applied.length > 0) io.stdout(`applied ${applied.map((version) => `#${version}`).join(', ')}\n`);
  io.stdout(`${terminalText(where)}: ${states.length - pending.length} of ${states.length} migrations applied${pending.length > 0 ? `, ${pending.length} pending (eql migrate up applies them; a host applies them at start)` : ', up to date'}\n`);
  for (const state of states) io.stdout(`${terminalText(`  #${state.version} ${state.appliedAt === undefined ? 'pending   ' : state.appliedAt.slice(0, 19).replace('T', ' ')}  ${state.name}`)}\n`);
}

/** `eql migrate status|up`: the schema migrations of the configured store (SQLite in the data directory, or PostgreSQL). */
export async function migrateCommand(action: 'status' | 'up', flags: { dataDir?: string; json: boolean }, io: CliIo): Promise<number> {
  const config = hostConfig(flags.dataDir);
  if (config.databaseUrl) {
    const { applied, states } = await pgMigrations(config.databaseUrl, action === 'up').catch((error: unknown) => {
      throw new UnusableInput(`cannot reach the PostgreSQL store: ${(error as Error).message}`);
    });
    printMigrations(states, 'PostgreSQL store', io, flags.json, applied);
    return 0;
  }
  const path = join(config.dataDir, 'eql.sqlite');
  const applied = action === 'up' ? migrateSqlite(path, config.secretKey) : [];
  printMigrations(sqliteMigrationStates(path), path, io, flags.json, applied);
  return 0;
}
