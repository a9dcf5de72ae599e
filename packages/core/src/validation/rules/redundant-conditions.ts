import { isRecord } from '../../util/json-pointer.js';
import { sameJson } from '../../util/same-json.js';
import type { Rule } from '../rule.js';

interface Interval {
  lo: number;
  loIncluded: boolean;
  hi: number;
  hiIncluded: boolean;
}

/** Narrows `interval`, in place, to what is left once `series <operator> value` is also required (`!=` and crossings leave it). */
function narrow(interval: Interval, operator: string, value: number): void {
  if (operator === '>' || operator === '>=' || operator === '==') {
    const included = operator !== '>';
    if (value > interval.lo || (value === interval.lo && !included)) {
      interval.lo = value;
      interval.loIncluded = included;
    }
  }
  if (operator === '<' || operator === '<=' || operator === '==') {
    const included = operator !== '<';
    if (value < interval.hi || (value === interval.hi && !included)) {
      interval.hi = value;
      interval.hiIncluded = included;
    }
  }
}

const isEmpty = (i: Interval): boolean => i.lo > i.hi || (i.lo === i.hi && !(i.loIncluded && i.hiIncluded));

/**
 * Within one group: the same condition twice is a warning; in an AND group, level comparisons of the
 * same series whose ranges do not overlap (price > 100 AND price < 90) can never hold together: a warning.
 * Members are compared pairwise only with earlier members of the same source and method (a group
 * has at most 20), structurally and without building keys.
 */
export const redundantConditions: Rule = {
  name: 'redundant-conditions',
  group: (group, { sink }) => {
    const { members, operator } = group;
    if (members.length < 2) return;
    // Per series seen so far in an AND group: its args and the range its comparisons leave open.
    let series: Series[] | undefined;
    for (let index = 0; index < members.length; index += 1) {
      const member = members[index];
      if (!isRecord(member) || !('source' in member)) continue;
      const twin = findEarlierTwin(members, index, member);
      if (twin !== undefined) {
        sink.warning('duplicate-condition', `${group.pointer}/${operator}/${index}`, `repeats condition ${twin} of the same ${operator} group`);
        continue;
      }
      const { operator: comparison, value } = member;
      if (operator !== 'AND' || typeof value !== 'number' || typeof comparison !== 'string') continue;
      series ??= [];
      if (narrowSeries(series, member, comparison, value)) {
        sink.warning(
          'contradictory-conditions',
          `${group.pointer}/${operator}/${index}`,
          `${String(member.method ?? member.source)} ${comparison} ${value} contradicts an earlier condition on the same series in this AND group: they can never hold together`,
        );
      }
    }
  },
};

/** A series met in an AND group (its source, method and args) and the range its comparisons so far leave open. */
interface Series extends Interval {
  source: unknown;
  method: unknown;
  args: unknown;
}

function findEarlierTwin(members: unknown[], index: number, member: Record<string, unknown>): number | undefined {
  const { source, method, operator, value } = member;
  for (let earlier = 0; earlier < index; earlier += 1) {
    const other = members[earlier];
    if (
      isRecord(other) &&
      other.source === source &&
      other.method === method &&
      other.operator === operator &&
      (typeof value !== 'number' || other.value === value) &&
      sameJson(other, member)
    ) {
      return earlier;
    }
  }
  return undefined;
}

/** Narrows the member's series by its comparison; true when that leaves no value where there was one. */
function narrowSeries(series: Series[], member: Record<string, unknown>, operator: string, value: number): boolean {
  const { source, method, args } = member;
  let entry: Series | undefined;
  for (const candidate of series) {
    if (candidate.source === source && candidate.method === method && sameJson(candidate.args, args)) {
      entry = candidate;
      break;
    }
  }
  if (entry === undefined) {
    entry = { source, method, args, lo: -Infinity, loIncluded: false, hi: Infinity, hiIncluded: false };
    series.push(entry);
  }
  const wasEmpty = isEmpty(entry);
  narrow(entry, operator, value);
  return !wasEmpty && isEmpty(entry);
}
