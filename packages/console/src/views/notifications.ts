// Live notifications of every query of the key, over the host's event stream. The client reconnects
// with Last-Event-ID on its own, so a dropped connection loses nothing; the last id seen is kept for the
// tab, so a reload resumes after it too.
import { errorText, formatTime, h } from '../dom.js';
import type { Session } from '../session.js';

const LAST_ID_ITEM = 'eql-console-last-notification';

export interface NotificationsView {
  element: HTMLElement;
  start(session: Session, onEvent: (event: { event: string; data: unknown }) => void): void;
  stop(): void;
}

export function notificationsView(): NotificationsView {
  const list = h('ol', { id: 'notifications-list', reversed: true });
  const state = h('p', { id: 'notifications-state', className: 'status', role: 'status', 'aria-live': 'polite' }, 'Not connected.');
  let controller: AbortController | undefined;

  const add = (notification: { id: number; title: string; body: string; createdAt: string; data: { queryId: string } }) => {
    const item = h('li', { 'data-notification-id': String(notification.id) }, h('strong', {}, notification.title), ' ', h('span', {}, notification.body), ' ', h('time', { datetime: notification.createdAt }, formatTime(notification.createdAt)), h('small', {}, ` (${notification.data.queryId})`));
    list.prepend(item);
    state.textContent = `New notification: ${notification.title}.`;
  };

  return {
    element: h('aside', { className: 'notifications', 'aria-labelledby': 'notifications-title' }, h('h2', { id: 'notifications-title' }, 'Notifications'), state, list),
    start(session, onEvent) {
      controller?.abort();
      controller = new AbortController();
      const signal = controller.signal;
      const lastEventId = sessionStorage.getItem(LAST_ID_ITEM) ?? undefined;
      void (async () => {
        try {
          for await (const event of session.client.notifications({
            signal,
            ...(lastEventId === undefined ? {} : { lastEventId }),
            onReconnect: ({ delayMs }) => (state.textContent = `Connection lost; reconnecting in ${Math.round(delayMs / 1000)} s (nothing is lost).`),
          })) {
            if (event.event === 'ready') state.textContent = 'Connected: notifications appear here as they happen.';
            if (event.event === 'notification:new') {
              sessionStorage.setItem(LAST_ID_ITEM, event.id);
              add(event.data);
            }
            onEvent(event);
          }
        } catch (error) {
          if (!signal.aborted) state.textContent = `The stream stopped: ${errorText(error)}`;
        }
      })();
    },
    stop() {
      controller?.abort();
      controller = undefined;
    },
  };
}
