import { isRecord } from '../../util/json-pointer.js';
import { sameJson } from '../../util/same-json.js';
import type { Rule } from '../rule.js';

interface Interval {
  lo: number;
  loIncluded: boolean;
  hi: number;
  hiIncluded: boolean;
}

/** The interval left once `series <operator> value` is also required (a new object; `!=` and crossings leave it as is). */
function narrow(interval: Interval, operator: string, value: number): Interval {
  let { lo, loIncluded, hi, hiIncluded } = interval;
  const raisesLo = operator === '>' || operator === '>=' || operator === '==';
  const lowersHi = operator === '<' || operator === '<=' || operator === '==';
  if (raisesLo) {
    const included = operator !== '>';
    if (value > lo || (value === lo && !included)) {
      lo = value;
      loIncluded = included;
    }
  }
  if (lowersHi) {
    const included = operator !== '<';
    if (value < hi || (value === hi && !included)) {
      hi = value;
      hiIncluded = included;
    }
  }
  return { lo, loIncluded, hi, hiIncluded };
}

const isEmpty = (i: Interval): boolean => i.lo > i.hi || (i.lo === i.hi && !(i.loIncluded && i.hiIncluded));
const UNBOUNDED: Interval = { lo: -Infinity, loIncluded: false, hi: Infinity, hiIncluded: false };

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
    const series: Series[] = [];
    for (let index = 0; index < members.length; index += 1) {
      const member = members[index];
      if (!isRecord(member) || !('source' in member)) continue;
      const twin = findEarlierTwin(members, index, member);
      if (twin !== undefined) {
        sink.warning('duplicate-condition', `${group.pointer}/${operator}/${index}`, `repeats condition ${twin} of the same ${operator} group`);
        continue;
      }
      const { operator: comparison, value } = member;
      if (operator === 'AND' && typeof value === 'number' && typeof comparison === 'string' && narrowSeries(series, member, comparison, value)) {
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
interface Series {
  source: unknown;
  method: unknown;
  args: unknown;
  interval: Interval;
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
    entry = { source, method, args, interval: UNBOUNDED };
    series.push(entry);
  }
  const before = entry.interval;
  entry.interval = narrow(before, operator, value);
  return isEmpty(entry.interval) && !isEmpty(before);
}
