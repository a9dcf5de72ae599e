import { checkObservation, feedKeyOfObservation, type Observation } from '@eql/core';

/** Why a message of the market bus is not an observation the bus carries. */
export interface BusMessageProblem {
  /**
   * The kind of problem, from a small fixed set (`json`, `object`, `at`, `source`, `price.symbol`,
   * `tweet.username`, `llm`…): a host logs the first message of each kind only.
   */
  kind: string;
  /** What is wrong, quoting at most 40 characters of the message. */
  reason: string;
}

/** What {@link checkBusObservation} finds: the observation (its known fields only), or why the message is none. */
export type BusMessageCheck = { observation: Observation; problem?: undefined } | { observation?: undefined; problem: BusMessageProblem };

/**
 * Checks a value as an observation of the market bus: the rule of every observation (`checkObservation`
 * of @eql/core: a recording line's fields, `at` in integer epoch ms), of a source the bus carries
 * (prices, posts and news; recorded LLM verdicts are never published). What readers hand to an engine
 * or the history, and what `eql bus publish` refuses to send.
 */
export function checkBusObservation(value: unknown): BusMessageCheck {
  const checked = checkObservation(value);
  if (checked.problem) {
    const { field, reason } = checked.problem;
    // A field of a source's own was checked once `source` passed: it names one of the four.
    const source = field === '' || field === 'at' || field === 'source' ? undefined : (value as { source: string }).source;
    return { problem: { kind: field === '' ? 'object' : source === undefined ? field : `${source}.${field}`, reason } };
  }
  if (feedKeyOfObservation(checked.observation) === undefined) {
    return { problem: { kind: checked.observation.source, reason: `the market bus does not carry ${checked.observation.source} observations` } };
  }
  return checked;
}

const decoder = new TextDecoder();

/** Reads a message of the market bus (JSON text) as an observation. Never throws. */
export function readBusMessage(data: Uint8Array): BusMessageCheck {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(data));
  } catch {
    return { problem: { kind: 'json', reason: `not JSON (${data.length} bytes)` } };
  }
  return checkBusObservation(value);
}
