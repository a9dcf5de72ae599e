import { walkConditions } from '../../language/query-walk.js';
import { canonicalJson } from '../../util/canonical-json.js';
import { isRecord, joinPointer } from '../../util/json-pointer.js';
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

/**
 * Within one group: the same condition twice is a warning; in an AND group, level comparisons of the
 * same series whose ranges do not overlap (price > 100 AND price < 90) can never hold together: a warning.
 */
export const redundantConditions: Rule = ({ query, sink }) => {
  if (query === undefined) return;
  walkConditions(query.conditions, '/query/conditions', (visit) => {
    if (visit.kind !== 'group') return;
    const seen = new Map<string, number>();
    const intervals = new Map<string, Interval>();
    visit.members.forEach((member, index) => {
      if (!isRecord(member) || !('source' in member)) return;
      const pointer = joinPointer(visit.pointer, visit.operator, index);
      const key = canonicalJson(member);
      const first = seen.get(key);
      if (first !== undefined) {
        sink.warning('duplicate-condition', pointer, `repeats condition ${first} of the same ${visit.operator} group`);
        return;
      }
      seen.set(key, index);
      if (visit.operator !== 'AND' || typeof member.value !== 'number' || typeof member.operator !== 'string') return;
      const subject = canonicalJson({ source: member.source, method: member.method, args: member.args });
      const before = intervals.get(subject) ?? { lo: -Infinity, loIncluded: false, hi: Infinity, hiIncluded: false };
      const after = narrow(before, member.operator, member.value);
      if (isEmpty(after) && !isEmpty(before)) {
        sink.warning(
          'contradictory-conditions',
          pointer,
          `${String(member.method ?? member.source)} ${member.operator} ${member.value} contradicts an earlier condition on the same series in this AND group: they can never hold together`,
        );
      }
      intervals.set(subject, after);
    });
  });
};
