import type { Action, CallbackAction } from '../../generated/eql-types.js';
import { isRecord } from '../../util/json-pointer.js';
import type { ActionContext, ActionExecutor, ActionOutcome, MaybePromise, Notification, NotificationDraft, StateStore } from '../interfaces.js';
import { isoTime } from '../maybe.js';
import { renderedText } from './rendered-text.js';

/**
 * notify: a notification record of spec 2.10 (type `athena_query_notify_only`, category `alerts`),
 * stored (which gives it its numeric id) and announced, so SSE streams deliver it. As an llm
 * callback, the body is the analysis unless the callback names a message.
 */
export class NotifyExecutor implements ActionExecutor {
  constructor(
    private readonly store: StateStore,
    private readonly announce: (notification: Notification) => void,
  ) {}

  execute(action: Action | CallbackAction, context: ActionContext): MaybePromise<ActionOutcome> {
    const params = isRecord(action.params) ? action.params : {};
    const { trigger } = context;
    const { title, body } = notificationText(params, context);
    const draft: NotificationDraft = {
      type: 'athena_query_notify_only',
      category: 'alerts',
      title,
      body,
      data: { queryId: trigger.queryId, stepId: context.stepId, triggerIndex: trigger.triggerIndex, executionId: context.executionId, observedAt: isoTime(trigger.firedAt) },
      priority: params.priority === 'low' || params.priority === 'normal' ? params.priority : 'high',
      createdAt: isoTime(context.now()),
    };
    if (context.ownerId !== undefined) draft.ownerId = context.ownerId;
    const stored = this.store.addNotification(draft);
    return stored instanceof Promise ? stored.then((notification) => this.announced(notification)) : this.announced(stored);
  }

  private announced(notification: Notification): ActionOutcome {
    this.announce(notification);
    return { result: { notificationId: notification.id } };
  }
}

/** A notification's title and body: the step's own (placeholders filled), else an llm callback's analysis or a default. */
export function notificationText(params: Record<string, unknown>, context: ActionContext): { title: string; body: string } {
  const { trigger } = context;
  return {
    title: typeof params.title === 'string' ? renderedText(params.title, context) : (trigger.title ?? 'EQL query triggered'),
    body: typeof params.message === 'string' ? renderedText(params.message, context) : (context.analysis?.response ?? `The conditions of ${trigger.title ?? 'your query'} hold.`),
  };
}
