import { LIMITS } from '../../language/limits.js';
import type { GroupVisit } from '../../language/query-walk.js';
import type { Rule } from '../rule.js';

/** Bounds the nesting depth of groups and the number of leaf conditions, and says so. */
export const structureLimits: Rule = {
  name: 'structure-limits',
  request: ({ groups, leaves, sink }) => {
    let tooDeep: GroupVisit | undefined;
    for (const group of groups) {
      if (group.depth <= LIMITS.maxGroupDepth) continue;
      tooDeep = group;
      break;
    }
    if (tooDeep) {
      sink.error('too-deep', tooDeep.pointer, `condition groups nest at most ${LIMITS.maxGroupDepth} deep; this group is at depth ${tooDeep.depth}`);
    }
    if (leaves.length > LIMITS.maxLeafConditions) {
      const first = leaves[LIMITS.maxLeafConditions];
      sink.error(
        'too-many-conditions',
        first ? first.pointer : '/query/conditions',
        `a query holds at most ${LIMITS.maxLeafConditions} conditions in all; this one has ${leaves.length}`,
      );
    }
  },
};
