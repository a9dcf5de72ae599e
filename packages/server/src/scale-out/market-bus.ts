import { AuthorizationError, connect, TimeoutError } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JetStreamClient, type JetStreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { checkObservation, feedKeyOfObservation, type Observation } from '@eql/core';
import { busHasCredentials, natsConnectionOptions, openBusWarning, redactNatsUrl } from './nats-connection.js';
import type { NatsAuth } from '../settings/nats-settings.js';
import { readBusMessage } from './bus-message.js';
import type { MalformedBusMessage } from './malformed-messages.js';

/** The stream of a cluster's market observations by default (EQL_NATS_STREAM). */
export const DEFAULT_MARKET_STREAM = 'EQL_MARKET';

/** How long the stream keeps observations by default: the longest a partition may go unread and still catch up. */
export const DEFAULT_MARKET_RETENTION_MS = 24 * 3_600_000;

/** An observation as the bus delivered it, with the stream's sequence number of its message. */
export interface BusObservation {
  seq: number;
  observation: Observation;
}

/** The stream's last message: its sequence, and its observation unless the message is none (malformed). */
export interface BusEnd {
  seq: number;
  observation: Observation | undefined;
}

/** What a reading of the stream does besides handing observations over (see {@link MarketBus.read}). */
export interface BusReadOptions {
  /**
   * A message that is no observation the bus carries (see `checkBusObservation`): never handed to
   * `deliver`; the reading goes on after it (after the promise returned, like `deliver`'s).
   */
  onMalformed?: (message: MalformedBusMessage) => Promise<void> | undefined | void;
  /** The reading failed (`deliver` threw, the consumer broke): it starts again at message `seq` after `delayMs`. */
  onError?: (error: unknown, retry: { seq: number; attempt: number; delayMs: number }) => void;
  /** How long to wait before the `attempt`-th attempt in a row to read again (default {@link readRetryDelayMs}). */
  retryDelayMs?: (attempt: number) => number;
}

/** Waits before reading again after the `attempt`-th failure in a row: 100 ms, doubling up to 30 s (a failure that persists does not spin). */
export function readRetryDelayMs(attempt: number): number {
  return Math.min(30_000, 100 * 2 ** Math.min(Math.max(attempt, 1) - 1, 20));
}

/** What {@link MarketBus.connect} needs. */
export interface MarketBusOptions {
  /** The JetStream stream (default EQL_MARKET); its subjects are `<stream in lower case>.<feed key>`. */
  stream?: string;
  /** How long observations are kept (default 24 h). */
  retentionMs?: number;
  /** The connection's name in the server's monitoring (the host's node id). */
  name?: string;
  /** How to authenticate and the TLS to require (the EQL_NATS_* settings); credentials in the URL count as well. */
  auth?: NatsAuth;
  /** Seals the hints between hosts: {@link MarketBus.signal} and {@link MarketBus.onSignal} need it. */
  hints?: HintSeal;
  /** Told once when a hint arrives that does not open (hosts without the same secret key, or a forgery). */
  warn?: (message: string) => void;
  /** The longest a connection attempt waits for the server's handshake (default 20 s, the client's). */
  connectTimeoutMs?: number;
}

/**
 * Authenticated encryption with a key only the hosts of a cluster hold (the secret box's
 * `derive('eql market bus hints')`): what it seals tells nothing to a reader of the subject, and what
 * anyone else publishes there does not open.
 */
export interface HintSeal {
  /** The text sealed: opaque, and different each time for the same text. */
  seal(plain: string): string;
  /** Throws when the text was not sealed with this key, or was altered. */
  open(sealed: string): string;
}

/** The NATS server could not be reached or refused the connection; the message names it with its credentials masked. */
export class BusConnectionError extends Error {
  override name = 'BusConnectionError';
}

/** What a refused connection's error means, in the settings' words. */
function whyRefused(error: unknown, tls: boolean): string {
  if (error instanceof AuthorizationError) return ' (the server refused the credentials: check EQL_NATS_USER/EQL_NATS_PASSWORD, EQL_NATS_TOKEN, EQL_NATS_NKEY_SEED, EQL_NATS_CREDS or the URL\'s)';
  // Over TLS 1.3 a server that refuses the client's certificate closes the connection after the handshake, which the client sees as a timeout.
  if (error instanceof TimeoutError && tls) return ' (the server did not finish the handshake: it refuses a client certificate it does not trust, or none, by closing the connection; check EQL_NATS_TLS_CERT and the server\'s log)';
  return '';
}

/** The largest hint opened: a sealed hint is well under it, anything larger is not one of ours. */
const MAX_HINT_BYTES = 4_096;

/** A reading of the stream from a sequence on: stop it to unsubscribe. */
export interface BusReading {
  /** Stops reading; resolves once the message being handed over (and what it waits for) is done. */
  stop(): Promise<void>;
  /** Resolves when the reading ended (stopped, or the connection closed). */
  readonly done: Promise<void>;
}

const NANOS = 1_000_000;

/**
 * Subject token of a feed key (`price:BTC` → `price.BTC`): a subject token may not hold `.`, `*`, `>`
 * or white space, so those are percent-encoded.
 */
export function subjectOf(prefix: string, feedKey: string): string {
  const [source, ...rest] = feedKey.split(':');
  const name = rest.join(':');
  const token = (text: string) => encodeURIComponent(text).replace(/[.*>~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return name === '' ? `${prefix}.${token(source ?? '')}` : `${prefix}.${token(source ?? '')}.${token(name)}`;
}

/**
 * The cluster's market bus on NATS JetStream: every feed is read once per cluster and its observations
 * published to one stream (subjects `<prefix>.price.<ASSET>`, `<prefix>.tweet.<account>`,
 * `<prefix>.news`); each host reads from it, from the sequence where the partitions it takes stopped.
 * A message id per observation (`Nats-Msg-Id`) lets the server drop a copy published twice (a feed
 * leader taking over re-publishes what its predecessor may have published) within the stream's
 * duplicate window.
 */
export class MarketBus {
  /** Whether the connection to the server is up (false while it reconnects, and once closed). */
  connected = true;

  /**
   * Why anyone who can reach the server could publish into the stream (it asks no authentication, or
   * let this connection in without credentials), or undefined; the host logs it at start.
   */
  openWarning: string | undefined;

  private hintSeal: HintSeal | undefined;
  /** Told each time the connection is back after a loss (the readings waiting to retry go at once). */
  private readonly reconnectListeners = new Set<() => void>();
  private warnUnreadableHint: ((message: string) => void) | undefined;

  private constructor(
    private readonly connection: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    /** The stream's name. */
    readonly stream: string,
    /** The subjects' prefix. */
    readonly prefix: string,
    /** This connection's name (the host's node id): signals it sends are not handed back to it. */
    readonly name: string,
  ) {
    void (async () => {
      for await (const status of connection.status()) {
        if (status.type === 'disconnect' || status.type === 'close') this.connected = false;
        else if (status.type === 'reconnect') {
          this.connected = true;
          for (const listener of [...this.reconnectListeners]) listener();
        }
      }
      this.connected = false;
    })().catch(() => (this.connected = false));
  }

  /**
   * Connects to NATS at `url` (its credentials, if any, and those of `options.auth`) and makes sure the
   * stream exists (created on first use, kept otherwise). A refusal names the server with its password
   * masked.
   */
  static async connect(url: string, options: MarketBusOptions = {}): Promise<MarketBus> {
    const stream = options.stream ?? DEFAULT_MARKET_STREAM;
    if (!/^[A-Za-z0-9_-]+$/.test(stream)) throw new Error(`the stream name ${JSON.stringify(stream)} may hold letters, digits, _ and - only`);
    const connectionOptions = natsConnectionOptions(url, options.auth);
    let connection: NatsConnection;
    try {
      connection = await connect({ ...connectionOptions, name: options.name ?? 'eql', maxReconnectAttempts: -1, reconnectTimeWait: 500, ...(options.connectTimeoutMs ? { timeout: options.connectTimeoutMs } : {}) });
    } catch (error) {
      throw new BusConnectionError(`cannot connect to the market bus at ${redactNatsUrl(url)}: ${(error as Error).message}${whyRefused(error, connectionOptions.tls !== undefined)}`, { cause: error });
    }
    try {
      const jsm = await jetstreamManager(connection);
      const prefix = stream.toLowerCase().replace(/_/g, '-');
      const maxAge = (options.retentionMs ?? DEFAULT_MARKET_RETENTION_MS) * NANOS;
      try {
        await jsm.streams.info(stream);
      } catch {
        await jsm.streams
          .add({ name: stream, subjects: [`${prefix}.>`], retention: RetentionPolicy.Limits, storage: StorageType.File, max_age: maxAge, duplicate_window: 120_000 * NANOS })
          .catch(async (error: unknown) => {
            // Another host created it meanwhile.
            await jsm.streams.info(stream).catch(() => {
              throw error;
            });
          });
      }
      const bus = new MarketBus(connection, jetstream(connection), jsm, stream, prefix, options.name ?? 'eql');
      bus.openWarning = openBusWarning(connection.info, busHasCredentials(url, options.auth));
      bus.hintSeal = options.hints;
      bus.warnUnreadableHint = options.warn;
      return bus;
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw error;
    }
  }

  /** The subject an observation is published on (undefined for what the bus does not carry: recorded LLM verdicts). */
  subjectOf(observation: Observation): string | undefined {
    const key = feedKeyOfObservation(observation);
    return key === undefined ? undefined : subjectOf(this.prefix, key);
  }

  /**
   * Publishes an observation once (`messageId` names it: the same id within the duplicate window is
   * stored once); resolves with its sequence in the stream when the server has stored it. Throws a
   * TypeError, sending nothing, for what is no observation (`checkObservation`): the readers would skip it.
   */
  async publish(observation: Observation, messageId: string): Promise<{ seq: number; duplicate: boolean } | undefined> {
    // What the readers would skip is refused here, where the publisher can tell.
    const checked = checkObservation(observation);
    if (checked.problem) throw new TypeError(`not an observation the market bus carries: ${checked.problem.reason}`);
    const subject = this.subjectOf(checked.observation);
    if (subject === undefined) return undefined;
    const ack = await this.js.publish(subject, JSON.stringify(checked.observation), { msgID: messageId });
    return { seq: ack.seq, duplicate: ack.duplicate };
  }

  /** The stream's last sequence and the observation stored there (undefined when the stream is empty; `observation` undefined when that message is none). */
  async last(): Promise<BusEnd | undefined> {
    const info = await this.jsm.streams.info(this.stream);
    const seq = info.state.last_seq;
    if (seq === 0 || info.state.messages === 0) return undefined;
    return { seq, observation: (await this.at(seq))?.observation };
  }

  /** The observation of one sequence, or undefined when the stream no longer (or never) held it, or the message is no observation. */
  async at(seq: number): Promise<BusObservation | undefined> {
    try {
      const message = await this.jsm.streams.getMessage(this.stream, { seq });
      if (!message) return undefined;
      const { observation } = readBusMessage(message.data);
      return observation && { seq, observation };
    } catch {
      return undefined;
    }
  }

  /**
   * Reads the stream in order from sequence `fromSeq` (inclusive; 0 or less: from the next message
   * published), handing each observation to `deliver`. An ordered consumer: no message is skipped or
   * repeated, and after a reconnect it goes on where it stopped. When `deliver` returns a promise, the
   * next message waits for it.
   *
   * Every message is checked first (`readBusMessage`): one that is no observation goes to
   * `onMalformed` instead, and the reading goes on after it. When reading fails (`deliver` throws or
   * rejects, the consumer breaks), the reading starts again at the message it failed on, after
   * `retryDelayMs`: `done` never rejects, and nothing escapes as an unhandled rejection.
   */
  async read(fromSeq: number, deliver: (message: BusObservation) => Promise<void> | undefined, options: BusReadOptions = {}): Promise<BusReading> {
    /** The next sequence to read: where a reading that failed starts again. */
    let next = fromSeq;
    const open = async (): Promise<ConsumerMessages> => {
      const consumer = await this.js.consumers.get(
        this.stream,
        next > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: next } : { deliver_policy: DeliverPolicy.New },
      );
      // A pull request lasts 5 s (the client's default is 30 s): after a reconnect the client re-checks the
      // consumer and, should the server not answer yet, tries again after this long, not 30 s later.
      return consumer.consume({ max_messages: 1_000, expires: 5_000 });
    };
    let messages: ConsumerMessages | undefined = await open();
    let stopped = false;
    let wake: (() => void) | undefined;
    let failures = 0;
    let reopen = false;
    // The connection is back after a loss (the server restarted, or the network came back): the reading
    // opens a new consumer at once from the next message, rather than leave it to the client, which
    // re-checks its consumer and, while the server's JetStream is not ready yet, waits a whole pull
    // expiry between checks; and a reading waiting to retry after a failure (a wait that grows to 30 s
    // through a long outage) tries now.
    let interruptOpen: (() => void) | undefined;
    const reconnected = () => {
      failures = 0;
      reopen = true;
      void messages?.close().catch(() => undefined);
      // An opening under way may wait for an answer the old server will never give (5 s): a new one goes.
      interruptOpen?.();
      wake?.();
    };
    this.reconnectListeners.add(reconnected);
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    const done = (async () => {
      while (!stopped) {
        try {
          reopen = false;
          if (!messages) {
            const opening = open();
            const interrupted = new Promise<undefined>((resolve) => (interruptOpen = () => resolve(undefined)));
            const opened = await Promise.race([opening, interrupted]);
            interruptOpen = undefined;
            if (!opened) {
              void opening.then((abandoned) => abandoned.close(), () => undefined);
              continue;
            }
            messages = opened;
          }
          if (stopped) break;
          for await (const message of messages) {
            const checked = readBusMessage(message.data);
            // The next message waits for what this one set going (a trigger's store writes).
            const settled = checked.observation
              ? deliver({ seq: message.seq, observation: checked.observation })
              : options.onMalformed?.({ seq: message.seq, subject: message.subject, problem: checked.problem });
            if (settled) await settled;
            next = message.seq + 1;
            failures = 0;
          }
          if (reopen && !stopped) {
            reopen = false;
            messages = undefined;
            continue;
          }
          // Stopped, or the connection closed.
          return;
        } catch (error) {
          if (stopped) return;
          failures += 1;
          const delayMs = (options.retryDelayMs ?? readRetryDelayMs)(failures);
          try {
            options.onError?.(error, { seq: next, attempt: failures, delayMs });
          } catch {
            // A listener's failure must not end the reading.
          }
          await messages?.close().catch(() => undefined);
          messages = undefined;
          await pause(delayMs);
        }
      }
      await messages?.close().catch(() => undefined);
    })().finally(() => this.reconnectListeners.delete(reconnected));
    return {
      done,
      stop: async () => {
        stopped = true;
        wake?.();
        await messages?.close().catch(() => undefined);
        await done;
      },
    };
  }

  /**
   * Tells the other hosts something at once (a query created or ended through this host, a notification
   * stored), over plain NATS (`<prefix>-signal.<kind>`, not kept): a hint that saves them waiting for
   * their next look at the store, never the only way they learn it. Sealed with the hosts' key (the
   * subject is readable by whoever may subscribe to it: the ids in a hint are not).
   */
  signal(kind: string, data: Record<string, unknown>): void {
    if (!this.hintSeal) throw new Error('MarketBus.signal: the bus was connected without `hints` (the key that seals them)');
    try {
      this.connection.publish(`${this.prefix}-signal.${kind}`, this.hintSeal.seal(JSON.stringify({ kind, from: this.name, data })));
    } catch {
      // A closed or reconnecting connection: the others learn it from the store.
    }
  }

  /**
   * Calls `handler` with the signals of `kind` the other hosts send; returns the unsubscribe. A message
   * that is too large, does not open with the hosts' key, or is not a hint of `kind` is dropped unread.
   */
  onSignal(kind: string, handler: (data: Record<string, unknown>) => void): () => void {
    const seal = this.hintSeal;
    if (!seal) throw new Error('MarketBus.onSignal: the bus was connected without `hints` (the key that seals them)');
    const subscription = this.connection.subscribe(`${this.prefix}-signal.${kind}`, {
      callback: (error, message) => {
        if (error || message.data.length > MAX_HINT_BYTES) return;
        let hint: { kind?: unknown; from?: unknown; data?: unknown };
        try {
          hint = JSON.parse(seal.open(message.string())) as typeof hint;
        } catch {
          this.warnUnreadableHint?.('market bus: a hint did not open with this host\'s key (do the hosts share EQL_SECRET_KEY? or someone else publishes on the hint subjects); such hints are dropped');
          this.warnUnreadableHint = undefined;
          return;
        }
        if (hint.kind !== kind || hint.from === this.name || typeof hint.data !== 'object' || hint.data === null || Array.isArray(hint.data)) return;
        handler(hint.data as Record<string, unknown>);
      },
    });
    return () => subscription.unsubscribe();
  }

  /** Removes the stream and everything in it (tests, and an operator starting the bus anew). */
  async destroy(): Promise<void> {
    await this.jsm.streams.delete(this.stream);
  }

  /** Closes the connection (after draining what was published). */
  async close(): Promise<void> {
    await this.connection.drain().catch(() => undefined);
  }
}
