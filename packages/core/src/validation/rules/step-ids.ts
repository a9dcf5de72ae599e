import { joinPointer, readablePath } from '../../util/json-pointer.js';
import type { Rule } from '../rule.js';

/** Every action has its own stepId. */
export const uniqueStepIds: Rule = ({ actions, sink }) => {
  const seen = new Map<string, string>();
  for (const action of actions) {
    if (action.parent) continue;
    const stepId = action.node.stepId;
    if (typeof stepId !== 'string') continue;
    const first = seen.get(stepId);
    if (first === undefined) {
      seen.set(stepId, action.pointer);
      continue;
    }
    sink.error('duplicate-step-id', joinPointer(action.pointer, 'stepId'), `stepId ${JSON.stringify(stepId)} is already used by ${readablePath(first)}`);
  }
};
