import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { parseRecording, RecordingError, type Observation } from '@eql/core';
import { BusPublisher, configFromEnv, MarketBus, type Publication } from '@eql/server';
import type { CliIo } from '../io.js';
import { UnusableInput } from '../io.js';

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
 * that running it again publishes nothing twice. Exit 0 published, 1 the bus refused, 2 unusable input.
 */
export async function busPublishCommand(file: string, flags: BusPublishFlags, io: CliIo): Promise<number> {
  if (!existsSync(file)) throw new UnusableInput(`no such file: ${file}`);
  const speed = flags.speed === 'max' ? Number.POSITIVE_INFINITY : Number(flags.speed);
  if (!(speed > 0)) throw new UnusableInput('--speed is a positive number or max');
  const config = configFromEnv(process.env, {});
  const url = flags.nats ?? config.natsUrl;
  if (!url) throw new UnusableInput('no NATS server: give --nats nats://host:4222 or set EQL_NATS_URL');
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
  const playAt = (at: number) => (flags.keepTimes ? at : startedAt + (at - first) / (Number.isFinite(speed) ? speed : 1));
  const idOf = (line: number) => (flags.keepTimes ? `${digest}:${line}` : `${digest}@${startedAt}:${line}`);
  const stream = flags.stream ?? config.natsStream;
  const bus = await MarketBus.connect(url, { name: 'eql bus publish', ...(stream ? { stream } : {}) });
  try {
    const publisher = new BusPublisher(bus);
    // Paced: each observation waits for its instant (at most a second per step, so the command stays responsive).
    const paced = !flags.keepTimes && Number.isFinite(speed);
    async function* items(): AsyncGenerator<Publication> {
      for (const [line, observation] of observations.entries()) {
        const at = playAt(observation.at);
        while (paced && Date.now() < at) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, at - Date.now())));
        yield { observation: { ...observation, at }, id: idOf(line) };
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

