import { LIMITS } from '../../language/limits.js';
import { walkConditions } from '../../language/query-walk.js';
import { joinPointer } from '../../util/json-pointer.js';
import type { Rule } from '../rule.js';

/** Bounds the nesting depth of groups and the number of leaf conditions, and says so. */
export const structureLimits: Rule = ({ query, leaves, sink }) => {
  if (query === undefined) return;
  let reportedDepth = false;
  walkConditions(query.conditions, joinPointer('/query', 'conditions'), (visit) => {
    if (visit.kind === 'group' && visit.depth > LIMITS.maxGroupDepth && !reportedDepth) {
      reportedDepth = true;
      sink.error(
        'too-deep',
        visit.pointer,
        `condition groups nest at most ${LIMITS.maxGroupDepth} deep; this group is at depth ${visit.depth}`,
      );
    }
  });
  if (leaves.length > LIMITS.maxLeafConditions) {
    const first = leaves[LIMITS.maxLeafConditions];
    sink.error(
      'too-many-conditions',
      first ? first.pointer : '/query/conditions',
      `a query holds at most ${LIMITS.maxLeafConditions} conditions in all; this one has ${leaves.length}`,
    );
  }
};
