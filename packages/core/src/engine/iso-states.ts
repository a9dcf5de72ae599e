import type { ConditionState } from './interfaces.js';
import { isoTime } from './maybe.js';

/** A condition state with its instants as ISO 8601 strings, as every time a host or a preview shows. */
export type IsoConditionState = Omit<ConditionState, 'since' | 'readyAt' | 'observedAt' | 'match' | 'lastScore'> & {
  since?: string;
  readyAt?: string;
  observedAt?: string;
  match?: Omit<NonNullable<ConditionState['match']>, 'at'> & { at: string };
  lastScore?: { confidence: number; at: string };
};

/** See {@link IsoConditionState}. */
export function isoConditionState(state: ConditionState): IsoConditionState {
  const { since, readyAt, observedAt, match, lastScore, ...rest } = state;
  const view: IsoConditionState = { ...rest };
  if (since !== undefined) view.since = isoTime(since);
  if (readyAt !== undefined) view.readyAt = isoTime(readyAt);
  if (observedAt !== undefined) view.observedAt = isoTime(observedAt);
  if (match !== undefined) view.match = { ...match, at: isoTime(match.at) };
  if (lastScore !== undefined) view.lastScore = { confidence: lastScore.confidence, at: isoTime(lastScore.at) };
  return view;
}
