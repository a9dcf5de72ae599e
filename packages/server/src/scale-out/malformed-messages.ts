import type { BusMessageProblem } from './bus-message.js';

/** A message of the market bus that is no observation, as a reading met it. */
export interface MalformedBusMessage {
  seq: number;
  subject: string;
  problem: BusMessageProblem;
}

/**
 * The log of a host's malformed bus messages: every reading of the host (each partition's, the history
 * recorder's) meets the same ones, and a bad publisher may send thousands, so the first of each kind is
 * logged, once per host, and the rest only counted (by the readings, in `GET /ready`). A line names the
 * message's sequence, its subject (cut short) and the problem, never the message's contents.
 */
export class MalformedMessageLog {
  private readonly logged = new Set<string>();

  constructor(private readonly warn: (message: string) => void) {}

  report({ seq, subject, problem }: MalformedBusMessage): void {
    if (this.logged.has(problem.kind)) return;
    this.logged.add(problem.kind);
    const shown = subject.length > 80 ? `${subject.slice(0, 80)}…` : subject;
    this.warn(
      `bus: message ${seq} on ${JSON.stringify(shown)} is not an observation (${problem.reason}): skipped, and counted in GET /ready (bus.positions.*.malformed); further messages of this kind (${problem.kind}) are counted without a log`,
    );
  }
}
