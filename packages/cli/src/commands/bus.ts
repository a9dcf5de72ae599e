import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { parseRecording, RecordingError, type Observation } from '@eql/core';
import { BusConnectionError, BusPublisher, checkBusObservation, configFromEnv, type HostConfig, MarketBus, natsConnectionOptions, type Publication, readClusterStatus } from '@eql/server';
import type { CliIo } from '../io.js';
import { UnusableInput } from '../io.js';
import { terminalText } from '../terminal-text.js';

export interface BusPublishFlags {
  /** NATS server (default EQL_NATS_URL). */
  nats?: string;
  /** JetStream stream (default EQL_NATS_STREAM, else EQL_MARKET). */
  stream?: string;
  /** Replay speed: a number (1 = real time) or `max` (as fast as the server stores them). */
  speed: string;
  /** Publish the recorded times as they are (a second run stores nothing new) instead of playing from now. */
  keepTimes: boolean;
  json: boolean;
}

/**
 * `eql bus publish RECORDING.jsonl`: publishes a recording's observations into the cluster's market bus
 * (EQL_FEED=bus hosts read it), in order, each once. By default the recording plays from now at
 * `--speed` (each observation stamped with the instant it plays at; `max`: stamped as at speed 1 but
 * sent at once); `--keep-times` keeps the recorded instants, with ids of the file's digest and line, so
 * that running it again publishes nothing twice. Every observation, stamped as it plays (whole ms), is
 * checked by the rule the hosts read the bus with before anything is sent: a recording (or a speed)
 * that would give one they skip is refused. Exit 0 published, 1 the bus refused, 2 unusable input
 * (a wrong setting included).
 */
export async function busPublishCommand(file: string, flags: BusPublishFlags, io: CliIo): Promise<number> {
  if (!existsSync(file)) throw new UnusableInput(`no such file: ${file}`);
  const speed = flags.speed === 'max' ? Number.POSITIVE_INFINITY : Number(flags.speed);
  if (!(speed > 0)) throw new UnusableInput('--speed is a positive number or max');
  const config = busConfig();
  const url = flags.nats ?? config.natsUrl;
  if (!url) throw new UnusableInput('no NATS server: give --nats nats://host:4222 or set EQL_NATS_URL');
  checkBusUrl(url, config);
  const text = readFileSync(file, 'utf8');
  let observations: Observation[];
  try {
    observations = parseRecording(text).observations.filter((observation) => observation.source !== 'llm');
  } catch (error) {
    if (error instanceof RecordingError) throw new UnusableInput(`${file}: ${error.message}`);
    throw error;
  }
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const startedAt = Date.now();
  const first = observations[0]?.at ?? startedAt;
  // Whole ms: the bus carries integer epoch ms times.
  const playAt = (at: number) => (flags.keepTimes ? at : Math.round(startedAt + (at - first) / (Number.isFinite(speed) ? speed : 1)));
  const idOf = (line: number) => (flags.keepTimes ? `${digest}:${line}` : `${digest}@${startedAt}:${line}`);
  const played = observations.map((observation, index) => {
    const checked = checkBusObservation({ ...observation, at: playAt(observation.at) });
    if (checked.problem) throw new UnusableInput(`${file}: observation ${index + 1}${flags.keepTimes ? '' : ` played at --speed ${flags.speed}`} is not one the bus carries: ${checked.problem.reason}`);
    return checked.observation;
  });
  const stream = flags.stream ?? config.natsStream;
  let bus: MarketBus;
  try {
    bus = await MarketBus.connect(url, { name: 'eql bus publish', ...(stream ? { stream } : {}), ...(config.natsAuth ? { auth: config.natsAuth } : {}) });
  } catch (error) {
    return refused(error, io);
  }
  try {
    const publisher = new BusPublisher(bus);
    // Paced: each observation waits for its instant (at most a second per step, so the command stays responsive).
    const paced = !flags.keepTimes && Number.isFinite(speed);
    async function* items(): AsyncGenerator<Publication> {
      for (const [line, observation] of played.entries()) {
        const { at } = observation;
        while (paced && Date.now() < at) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, at - Date.now())));
        yield { observation, id: idOf(line) };
      }
    }
    const total = observations.length;
    const outcome = await publisher.publish(items(), {
      onProgress: (done) => {
        if (!flags.json && total > 1_000) io.stderr(`\r${done} of ${total}`);
      },
    });
    if (flags.json) io.stdout(`${JSON.stringify({ stream: bus.stream, ...outcome }, null, 2)}\n`);
    else io.stdout(`${total > 1_000 ? '\n' : ''}published ${outcome.published} observations to ${bus.stream} (${outcome.duplicates} already there, last sequence ${outcome.lastSeq})\n`);
    return 0;
  } finally {
    await bus.close();
  }
}


/**
 * `eql bus status [--json]`: the cluster of EQL_DATABASE_URL on the bus of EQL_NATS_URL: the stream's
 * last message, the hosts and their heartbeats, the feed's leader and how far it wrote the history, and
 * each partition's holder and how many messages it is behind. Exit 0, 1 when the bus refuses the
 * connection, 2 without the two URLs or with a wrong setting.
 */
export async function busStatusCommand(flags: { nats?: string; stream?: string; json: boolean }, io: CliIo): Promise<number> {
  const config = busConfig();
  const natsUrl = flags.nats ?? config.natsUrl;
  if (!config.databaseUrl) throw new UnusableInput('no database: set EQL_DATABASE_URL (the cluster\'s PostgreSQL)');
  if (!natsUrl) throw new UnusableInput('no NATS server: give --nats nats://host:4222 or set EQL_NATS_URL');
  checkBusUrl(natsUrl, config);
  const stream = flags.stream ?? config.natsStream;
  let status;
  try {
    status = await readClusterStatus({ databaseUrl: config.databaseUrl, natsUrl, ttlMs: config.leaseTtlMs, ...(stream ? { stream } : {}), ...(config.natsAuth ? { natsAuth: config.natsAuth } : {}) });
  } catch (error) {
    return refused(error, io);
  }
  if (flags.json) {
    io.stdout(`${JSON.stringify(status, null, 2)}\n`);
    return 0;
  }
  // Node ids and the stream's name come from the database and the NATS server: escaped for the terminal.
  io.stdout(`${terminalText(`stream ${status.stream.name}: last message ${status.stream.lastSeq}${status.stream.lastAt ? ` (${status.stream.lastAt})` : ''}`)}\n`);
  io.stdout(`${terminalText(`hosts: ${status.hosts.length === 0 ? 'none' : status.hosts.map((host) => `${host.nodeId} (${host.live ? `beat ${(host.heartbeatMsAgo / 1000).toFixed(1)} s ago` : 'gone'})`).join(', ')}`)}\n`);
  io.stdout(`${terminalText(`feed leader: ${status.feed.leader ?? 'none'}; history written up to message ${status.feed.historyUpTo ?? 0}`)}\n`);
  const rows = [['PARTITION', 'HOST', 'READ UP TO', 'BEHIND'], ...status.partitions.map((row) => [String(row.partition), row.host === null ? '-' : terminalText(`${row.host}${row.leaseExpired ? ' (expired)' : ''}`), row.readUpTo === null ? '-' : String(row.readUpTo), row.behind === null ? '-' : String(row.behind)])];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) io.stdout(`${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()}\n`);
  return 0;
}

/** The host's settings (EQL_NATS_URL, its credentials and TLS files, ...): a wrong one is unusable input that names it. */
function busConfig(): HostConfig {
  try {
    return configFromEnv(process.env, {});
  } catch (error) {
    throw new UnusableInput((error as Error).message);
  }
}

/** A bus URL (`--nats` or EQL_NATS_URL) that is not one, or holds credentials besides those of the settings, is unusable input. */
function checkBusUrl(url: string, config: HostConfig): void {
  try {
    natsConnectionOptions(url, config.natsAuth);
  } catch (error) {
    throw new UnusableInput((error as Error).message);
  }
}

/** Exit 1 with the bus's refusal (its URL masked) when the server refused or could not be reached; anything else goes on up. */
function refused(error: unknown, io: CliIo): number {
  if (!(error instanceof BusConnectionError)) throw error;
  io.stderr(`eql: ${error.message}\n`);
  return 1;
}
