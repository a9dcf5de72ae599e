import { readablePath } from '../../util/json-pointer.js';
import type { Rule } from '../rule.js';

/** Every action has its own stepId. */
export const uniqueStepIds: Rule = {
  name: 'unique-step-ids',
  request: ({ actions, sink }) => {
    if (actions.length < 2) return;
    const seen = new Map<string, string>();
    for (const action of actions) {
      const stepId = action.node.stepId;
      if (action.parent || typeof stepId !== 'string') continue;
      const first = seen.get(stepId);
      if (first === undefined) seen.set(stepId, action.pointer);
      else sink.error('duplicate-step-id', `${action.pointer}/stepId`, `stepId ${JSON.stringify(stepId)} is already used by ${readablePath(first)}`);
    }
  },
};
