// The key's queries: status, credits, the live condition states of the one selected, its executions
// with their errors, and cancel and delete (signed by the client when the query trades).
import { errorText, formatTime, h, replaceChildren, text } from '../dom.js';
import type { Session } from '../session.js';
import { formatNumber } from '../numbers.js';

type QueryDetail = Awaited<ReturnType<Session['client']['getQuery']>>;
/** A row of `GET /v2/auto/queries`. */
interface QueryRow {
  queryId: string;
  title?: string;
  status: string;
  credits: number;
  createdAt: string;
}
type ConditionState = { path?: string; source?: string; method?: string; holds?: boolean; value?: unknown; threshold?: unknown; status?: string; reason?: string };

export interface QueriesView {
  element: HTMLElement;
  refresh(): Promise<void>;
  select(queryId: string): Promise<void>;
  /** Live condition states from the stream (`query:state`). */
  showStates(queryId: string, states: unknown): void;
  /** Stops reading the selected query again (the page shows another view). */
  stop(): void;
}

export function queriesView(session: () => Session): QueriesView {
  const list = h('tbody', { id: 'queries-body' });
  const detail = h('section', { id: 'query-detail', className: 'panel', 'aria-labelledby': 'query-detail-title', 'aria-live': 'polite' }, h('h3', { id: 'query-detail-title' }, 'Select a query'));
  const status = h('p', { id: 'queries-status', className: 'status', role: 'alert' });
  let selected: string | undefined;

  const statesTable = (states: ConditionState[]) =>
    h(
      'table',
      { className: 'states', id: 'condition-states' },
      h('caption', {}, 'Condition states'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Condition'), h('th', { scope: 'col' }, 'Holds'), h('th', { scope: 'col' }, 'Value'), h('th', { scope: 'col' }, 'Threshold'), h('th', { scope: 'col' }, 'Status'))),
      h(
        'tbody',
        {},
        ...states.map((state) =>
          h(
            'tr',
            {},
            h('td', {}, `${state.source ?? ''}.${state.method ?? ''} ${state.path ?? ''}`),
            h('td', {}, state.holds ? 'yes' : 'no'),
            h('td', { className: 'number' }, state.value === undefined ? '—' : typeof state.value === 'number' ? formatNumber(state.value) : text(state.value)),
            h('td', { className: 'number' }, state.threshold === undefined ? '—' : typeof state.threshold === 'number' ? formatNumber(state.threshold) : text(state.threshold)),
            h('td', {}, [state.status, state.reason].filter(Boolean).join(': ')),
          ),
        ),
      ),
    );

  const showDetail = (query: QueryDetail): void => {
    const record = query as unknown as Record<string, unknown>;
    const evaluation = record.latestEvaluation as { conditionStates?: ConditionState[]; evaluatedAt?: string; wouldTriggerNow?: boolean } | null | undefined;
    const executions = (record.executions as Array<Record<string, unknown>> | undefined) ?? [];
    replaceChildren(
      detail,
      h('h3', { id: 'query-detail-title' }, `${text(record.title ?? record.queryId)} — ${text(record.status)}`),
      h('p', {}, `Credits ${text(record.credits ?? 0)}; evaluated ${formatTime(evaluation?.evaluatedAt)}; would trigger now: ${evaluation?.wouldTriggerNow ? 'yes' : 'no'}`),
      h('div', { id: 'states-host' }, statesTable(evaluation?.conditionStates ?? [])),
      h(
        'table',
        { className: 'executions', id: 'executions' },
        h('caption', {}, 'Executions'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Step'), h('th', { scope: 'col' }, 'Type'), h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col' }, 'When'), h('th', { scope: 'col' }, 'Error'))),
        h(
          'tbody',
          {},
          ...executions.map((execution) => {
            const error = execution.error as { code?: string; message?: string } | undefined;
            return h(
              'tr',
              { className: execution.status === 'failed' ? 'failed' : undefined },
              h('td', {}, text(execution.stepId)),
              h('td', {}, text(execution.type)),
              h('td', {}, text(execution.status)),
              h('td', {}, formatTime(execution.finishedAt as string | undefined ?? execution.createdAt as string | undefined)),
              h('td', {}, error ? `${error.code ?? ''}: ${error.message ?? ''}` : ''),
            );
          }),
        ),
      ),
    );
  };

  /** While a selected query is active, its states are read again every few seconds (the stream says only readiness changes). */
  let poll: ReturnType<typeof setTimeout> | undefined;
  const select = async (queryId: string): Promise<void> => {
    selected = queryId;
    if (poll !== undefined) clearTimeout(poll);
    poll = undefined;
    try {
      const query = await session().client.getQuery(queryId);
      if (selected !== queryId) return;
      showDetail(query);
      if ((query as unknown as { status?: string }).status === 'active' && detail.isConnected) poll = setTimeout(() => void select(queryId), 5_000);
    } catch (error) {
      status.textContent = `Could not read ${queryId}: ${errorText(error)}`;
    }
  };

  const act = async (label: string, queryId: string, call: () => Promise<unknown>) => {
    try {
      await call();
      status.textContent = `${label} ${queryId}.`;
      await refresh();
      if (selected === queryId) await select(queryId);
    } catch (error) {
      status.textContent = `${label} failed: ${errorText(error)}`;
    }
  };

  const refresh = async (): Promise<void> => {
    try {
      const page = await session().client.listQueries({ limit: 50 });
      const queries = page.queries as unknown as QueryRow[];
      replaceChildren(
        list,
        ...queries.map((query) =>
          h(
            'tr',
            { 'data-query-id': query.queryId },
            h('td', {}, h('button', { type: 'button', className: 'link', onClick: () => void select(query.queryId), 'aria-label': `Show ${query.title ?? query.queryId}` }, query.title ?? query.queryId)),
            h('td', { className: `status-${query.status}` }, query.status),
            h('td', {}, String(query.credits)),
            h('td', {}, formatTime(query.createdAt)),
            h(
              'td',
              {},
              query.status === 'active' ? h('button', { type: 'button', onClick: () => void act('Cancelled', query.queryId, () => session().client.cancelQuery(query.queryId)), 'aria-label': `Cancel ${query.title ?? query.queryId}` }, 'Cancel') : undefined,
              h('button', { type: 'button', onClick: () => void act('Deleted', query.queryId, () => session().client.deleteQuery(query.queryId)), 'aria-label': `Delete ${query.title ?? query.queryId}` }, 'Delete'),
            ),
          ),
        ),
      );
      if (queries.length === 0) replaceChildren(list, h('tr', {}, h('td', { colspan: '5' }, 'No queries yet: create one above.')));
    } catch (error) {
      status.textContent = `Could not list the queries: ${errorText(error)}`;
    }
  };

  const element = h(
    'section',
    { className: 'queries', 'aria-labelledby': 'queries-title' },
    h('h2', { id: 'queries-title' }, 'Queries ', h('button', { type: 'button', id: 'refresh-queries', onClick: () => void refresh() }, 'Refresh')),
    status,
    h(
      'table',
      { id: 'queries' },
      h('caption', { className: 'visually-hidden' }, 'Your queries, newest first'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Title'), h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col' }, 'Credits'), h('th', { scope: 'col' }, 'Created'), h('th', { scope: 'col' }, 'Actions'))),
      list,
    ),
    detail,
  );
  return {
    element,
    refresh,
    select,
    stop() {
      selected = undefined;
      if (poll !== undefined) clearTimeout(poll);
      poll = undefined;
    },
    showStates(queryId, states) {
      if (queryId !== selected || !Array.isArray(states)) return;
      const host = detail.querySelector('#states-host');
      if (host) replaceChildren(host, statesTable(states as ConditionState[]));
    },
  };
}
