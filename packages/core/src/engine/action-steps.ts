import type { Action, CallbackAction, Query } from '../generated/eql-types.js';
import { isRecord } from '../util/json-pointer.js';

/** One execution a trigger runs: an action of the query, or the callback action of an llm step. */
export interface ActionStep {
  stepId: string;
  action: Action | CallbackAction;
  /** For a callback: the llm step whose analysis it needs. */
  callbackOf?: string;
}

/** The steps of a query's actions in the order a trigger runs them: each llm step's callback right after it. */
export function actionSteps(actions: Query['actions']): ActionStep[] {
  // Without callbacks, one step an action: `map` sizes the list exactly (a list filled by `push` keeps room for 16).
  if (!actions.some(hasCallback)) return actions.map((action) => ({ stepId: action.stepId, action }));
  const steps: ActionStep[] = [];
  for (const action of actions) {
    steps.push({ stepId: action.stepId, action });
    if (hasCallback(action)) steps.push({ stepId: `${action.stepId}.callback`, action: action.params.callback.action, callbackOf: action.stepId });
  }
  return steps;
}

/** An llm action with a callback action: its callback runs as a step of its own, right after it. */
function hasCallback(action: Action): action is Extract<Action, { type: 'llm' }> & { params: { callback: { action: CallbackAction } } } {
  return action.type === 'llm' && isRecord(action.params.callback) && isRecord(action.params.callback.action);
}
