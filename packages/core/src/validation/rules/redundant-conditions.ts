import { isRecord } from '../../util/json-pointer.js';
import { sameJson } from '../../util/same-json.js';
import type { DiagnosticSink } from '../diagnostic.js';
import type { Rule } from '../rule.js';

interface Interval {
  lo: number;
  loIncluded: boolean;
  hi: number;
  hiIncluded: boolean;
}

function narrow(interval: Interval, operator: string, value: number): Interval {
  const next = { ...interval };
  const raiseLo = (lo: number, included: boolean) => {
    if (lo > next.lo || (lo === next.lo && !included)) Object.assign(next, { lo, loIncluded: included });
  };
  const lowerHi = (hi: number, included: boolean) => {
    if (hi < next.hi || (hi === next.hi && !included)) Object.assign(next, { hi, hiIncluded: included });
  };
  if (operator === '>') raiseLo(value, false);
  else if (operator === '>=') raiseLo(value, true);
  else if (operator === '<') lowerHi(value, false);
  else if (operator === '<=') lowerHi(value, true);
  else if (operator === '==') {
    raiseLo(value, true);
    lowerHi(value, true);
  }
  return next;
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
    const { members } = group;
    if (members.length < 2) return;
    // Per series seen so far in an AND group: its args and the range its comparisons leave open.
    const series: Array<{ source: unknown; method: unknown; args: unknown; interval: Interval }> = [];
    for (let index = 0; index < members.length; index += 1) {
      const member = members[index];
      if (!isRecord(member) || !('source' in member)) continue;
      const pointer = `${group.pointer}/${group.operator}/${index}`;
      const twin = findEarlierTwin(members, index, member);
      if (twin !== undefined) {
        sink.warning('duplicate-condition', pointer, `repeats condition ${twin} of the same ${group.operator} group`);
        continue;
      }
      if (group.operator === 'AND' && typeof member.value === 'number' && typeof member.operator === 'string') {
        narrowSeries(series, member, member.operator, member.value, pointer, sink);
      }
    }
  },
};

function findEarlierTwin(members: unknown[], index: number, member: Record<string, unknown>): number | undefined {
  for (let earlier = 0; earlier < index; earlier += 1) {
    const other = members[earlier];
    if (
      isRecord(other) &&
      other.source === member.source &&
      other.method === member.method &&
      other.operator === member.operator &&
      (typeof member.value !== 'number' || other.value === member.value) &&
      sameJson(other, member)
    ) {
      return earlier;
    }
  }
  return undefined;
}

function narrowSeries(
  series: Array<{ source: unknown; method: unknown; args: unknown; interval: Interval }>,
  member: Record<string, unknown>,
  operator: string,
  value: number,
  pointer: string,
  sink: DiagnosticSink,
): void {
  let entry = series.find((s) => s.source === member.source && s.method === member.method && sameJson(s.args, member.args));
  if (entry === undefined) {
    entry = { source: member.source, method: member.method, args: member.args, interval: UNBOUNDED };
    series.push(entry);
  }
  const after = narrow(entry.interval, operator, value);
  if (isEmpty(after) && !isEmpty(entry.interval)) {
    sink.warning(
      'contradictory-conditions',
      pointer,
      `${String(member.method ?? member.source)} ${operator} ${value} contradicts an earlier condition on the same series in this AND group: they can never hold together`,
    );
  }
  entry.interval = after;
}
