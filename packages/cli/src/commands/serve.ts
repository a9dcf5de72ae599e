import { configFromEnv, startServer } from '@eql/server';
import type { CliIo } from '../io.js';
import { UnusableInput } from '../io.js';

export interface ServeFlags {
  port?: string;
  host?: string;
  dataDir?: string;
}

/**
 * `eql serve`: starts the HTTP host (defaults from EQL_PORT, EQL_HOST, EQL_DATA_DIR and the other EQL_*
 * variables; flags win). Runs until the process gets SIGINT or SIGTERM, then closes cleanly.
 */
export async function serveCommand(flags: ServeFlags, io: CliIo): Promise<number> {
  let config;
  try {
    config = configFromEnv(process.env, {
      ...(flags.port !== undefined ? { port: Number(flags.port) } : {}),
      ...(flags.host !== undefined ? { host: flags.host } : {}),
      ...(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {}),
    });
  } catch (error) {
    throw new UnusableInput((error as Error).message);
  }
  const { host } = await startServer(config, (line) => io.stdout(`${line}\n`));
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await host.close();
  return 0;
}
