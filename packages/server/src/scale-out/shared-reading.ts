import type { MalformedBusMessage } from './malformed-messages.js';
import type { BusObservation, BusReading, MarketBus } from './market-bus.js';

/** A message of the stream as the members of a shared reading get it: an observation, or one that is none. */
export type SharedMessage = { observation: BusObservation; malformed?: undefined } | { observation?: undefined; malformed: MalformedBusMessage };

/** The sequence of a {@link SharedMessage}. */
export const seqOf = (message: SharedMessage): number => (message.observation ? message.observation.seq : message.malformed.seq);

/** One reader of a shared reading (a partition): it takes the messages in order, one at a time. */
export interface ReadingMember {
  /** Handles one message; a promise returned holds this member's next message (not the others') until it settles. */
  take(message: SharedMessage): Promise<void> | undefined;
}

/** What a {@link SharedBusReading} needs. */
export interface SharedBusReadingOptions {
  bus: Pick<MarketBus, 'read'>;
  /** How many of the last messages read are kept for a member joining a little behind (default 10,000). */
  keep?: number;
  /** How many messages one member may have waiting before the reading holds for it (default 1,000). */
  queueLimit?: number;
  /** Told of each message that is no observation, once, whatever the number of members. */
  onMalformed?: (message: MalformedBusMessage) => void;
  /** The reading failed and starts again at `seq` (see MarketBus.read). */
  onError?: (error: unknown, retry: { seq: number; delayMs: number }) => void;
  warn?: (message: string, error?: unknown) => void;
}

interface Joined {
  member: ReadingMember;
  queue: SharedMessage[];
  /** The message being taken, when it holds the member. */
  busy: Promise<void> | undefined;
  left: boolean;
}

/**
 * One reading of the market bus for all the partitions a host runs (issue 47): each message is read
 * and decoded once and handed to every member, in order. A member taking its time (a trigger's writes)
 * holds only itself while its messages wait in its queue; when one member has `queueLimit` waiting,
 * the reading holds (the stream keeps the rest) until it takes them.
 *
 * A member joins at the sequence it needs next. The reading starts at the first member's; a later one
 * joins when that sequence is among the last `keep` messages read or the next to come, and gets the
 * kept ones first. A member further behind (a partition just taken over, its position far back)
 * catches up on a reading of its own and joins once it is close: {@link join} answers whether it could.
 * The reading stops when its last member leaves.
 */
export class SharedBusReading {
  private reading: BusReading | undefined;
  /** A start or stop of the reading under way (joins and leaves wait for it). */
  private changing: Promise<void> = Promise.resolve();
  private readonly members = new Map<ReadingMember, Joined>();
  /** The last messages read, oldest first (at most `keep`). */
  private kept: SharedMessage[] = [];
  /** The sequence the reading hands over next. */
  private next = 0;
  private holding: { released: Promise<void>; release: () => void } | undefined;

  constructor(private readonly options: SharedBusReadingOptions) {}

  /** How many members it has, and the sequence it reads next (0 when it is not reading). */
  status(): { members: number; next: number } {
    return { members: this.members.size, next: this.reading ? this.next : 0 };
  }

  /**
   * Joins `member` from sequence `from`: true when it will get every message from `from` on, in order
   * (starting the reading there when it has no member); false when the reading is past `from` by more
   * than the messages it keeps, or not yet at it (the member reads on its own and asks again later).
   */
  join(member: ReadingMember, from: number): Promise<boolean> {
    const joined = this.changing.then(async () => {
      if (this.members.has(member)) return true;
      if (!this.reading) {
        // A member first: the reading may hand over its first messages before it answers.
        this.attach(member, []);
        try {
          await this.start(from);
        } catch (error) {
          this.members.delete(member);
          throw error;
        }
        return true;
      }
      if (!this.holds(from)) return false;
      this.attach(
        member,
        this.kept.filter((message) => seqOf(message) >= from),
      );
      return true;
    });
    this.changing = joined.then(
      () => undefined,
      () => undefined,
    );
    return joined;
  }

  /** Whether a member needing `from` next would be let in now (see {@link join}); cheap, for a member reading on its own. */
  canJoin(from: number): boolean {
    return !this.reading || this.holds(from);
  }

  /** Whether the running reading can hand a member every message from `from` on: a kept one, or the next to come. */
  private holds(from: number): boolean {
    const oldest = this.kept.length > 0 ? seqOf(this.kept[0]!) : this.next;
    return from >= oldest && from <= this.next;
  }

  /**
   * `member` gets no more messages: those waiting are dropped, and it resolves once the one being taken
   * is done. The reading stops when it was the last member.
   */
  async leave(member: ReadingMember): Promise<void> {
    const joined = this.members.get(member);
    if (!joined) return;
    joined.left = true;
    joined.queue = [];
    this.members.delete(member);
    this.releaseIfRoom();
    if (this.members.size === 0) {
      // After a start under way; not awaited here: a member may leave from inside the message it takes.
      const stopping = this.changing.then(() => {
        const reading = this.reading;
        if (this.members.size > 0 || !reading) return undefined;
        this.reading = undefined;
        this.kept = [];
        return reading.stop();
      });
      this.changing = stopping.catch(() => undefined);
    }
    await joined.busy;
  }

  /** Resolves once a start or stop of the reading under way is done (a host closing waits for it before it closes the connection). */
  async settled(): Promise<void> {
    await this.changing;
  }

  private async start(from: number): Promise<void> {
    this.next = from;
    this.kept = [];
    this.reading = await this.options.bus.read(from, (observation) => this.hand({ observation }), {
      onMalformed: (malformed) => {
        this.options.onMalformed?.(malformed);
        return this.hand({ malformed });
      },
      onError: (error, { seq, delayMs }) => this.options.onError?.(error, { seq, delayMs }),
    });
  }

  private attach(member: ReadingMember, backlog: SharedMessage[]): void {
    const joined: Joined = { member, queue: [], busy: undefined, left: false };
    this.members.set(member, joined);
    for (const message of backlog) this.enqueue(joined, message);
  }

  /** A message read: kept, and handed to every member; the reading holds while a member's queue is full. */
  private hand(message: SharedMessage): Promise<void> | undefined {
    const seq = seqOf(message);
    // A reading started again after a failure hands over again from the message that failed.
    if (seq < this.next) return undefined;
    this.next = seq + 1;
    this.kept.push(message);
    const keep = this.options.keep ?? 10_000;
    if (this.kept.length > keep * 2) this.kept = this.kept.slice(-keep);
    for (const joined of this.members.values()) this.enqueue(joined, message);
    return this.full() ? this.hold() : undefined;
  }

  private enqueue(joined: Joined, message: SharedMessage): void {
    if (joined.busy || joined.queue.length > 0) {
      joined.queue.push(message);
      return;
    }
    this.takeFrom(joined, message);
  }

  /**
   * Hands `message` to the member, then the messages waiting after it, one at a time: a message whose
   * taking holds the member (a promise) lets the next one go only once it settles.
   */
  private takeFrom(joined: Joined, message: SharedMessage): void {
    for (let current: SharedMessage | undefined = message; current !== undefined && !joined.left; current = joined.queue.shift()) {
      let taken: Promise<void> | undefined;
      try {
        taken = joined.member.take(current);
      } catch (error) {
        this.options.warn?.(`bus: a partition failed to take message ${seqOf(current)}`, error);
      }
      if (taken) {
        const seq = seqOf(current);
        joined.busy = taken
          .catch((error: unknown) => this.options.warn?.(`bus: a partition failed to take message ${seq}`, error))
          .then(() => {
            joined.busy = undefined;
            const following = joined.left ? undefined : joined.queue.shift();
            this.releaseIfRoom();
            if (following) this.takeFrom(joined, following);
          });
        this.releaseIfRoom();
        return;
      }
    }
    this.releaseIfRoom();
  }

  private full(): boolean {
    const limit = this.options.queueLimit ?? 1_000;
    for (const joined of this.members.values()) if (joined.queue.length >= limit) return true;
    return false;
  }

  private hold(): Promise<void> {
    if (!this.holding) {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      this.holding = { released, release };
    }
    return this.holding.released;
  }

  private releaseIfRoom(): void {
    if (!this.holding || this.full()) return;
    const { release } = this.holding;
    this.holding = undefined;
    release();
  }
}
