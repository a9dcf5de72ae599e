// Drafts: queries kept on the host without running (spec 4.4). Save the editor's query as a draft (an
// incomplete or invalid one too: its findings come back), open one into the editor, activate it (the
// host converts it into a running query), delete it.
import { errorText, formatTime, h, replaceChildren } from '../dom.js';
import type { Session } from '../session.js';

interface DraftRow {
  draftId: string;
  title?: string;
  updatedAt: string;
  convertedQueryId?: string | null;
}

export interface DraftsView {
  element: HTMLElement;
  refresh(): Promise<void>;
  /** Saves `request` as a new draft, or as the draft named (an update); returns its id. */
  save(request: unknown, draftId: string | undefined): Promise<string>;
}

export function draftsView(session: () => Session, open: (draftId: string, request: unknown) => void, activated: (queryId: string) => void): DraftsView {
  const list = h('tbody', { id: 'drafts-body' });
  const status = h('p', { id: 'drafts-status', className: 'status', role: 'alert' });
  const api = () => session().client.api;

  const failed = (what: string, error: unknown) => {
    status.textContent = `${what} failed: ${errorText(error)}`;
  };
  /** openapi-fetch answers `{data, error}`: an error body becomes a thrown error with the host's message. */
  const answer = <T>(reply: { data?: T; error?: unknown }): T => {
    if (reply.error !== undefined || reply.data === undefined) throw Object.assign(new Error('the host refused'), { body: reply.error });
    return reply.data;
  };

  /** A button of a draft's row: runs `call`, says what happened (or what failed), lists the drafts again. */
  const rowAction = (label: string, name: string, call: () => Promise<string | undefined>) =>
    h(
      'button',
      {
        type: 'button',
        'aria-label': `${label} ${name}`,
        onClick: async () => {
          try {
            const said = await call();
            if (said !== undefined) status.textContent = said;
          } catch (error) {
            failed(label, error);
          }
        },
      },
      label,
    );

  const refresh = async (): Promise<void> => {
    try {
      const page = answer(await api().GET('/v2/auto/queries/drafts', { params: { query: { limit: 50 } } })) as unknown as { drafts: DraftRow[] };
      replaceChildren(
        list,
        ...page.drafts.map((draft) => {
          const name = draft.title ?? draft.draftId;
          return h(
            'tr',
            { 'data-draft-id': draft.draftId },
            h('td', {}, name),
            h('td', {}, formatTime(draft.updatedAt)),
            h('td', {}, draft.convertedQueryId ? `running as ${draft.convertedQueryId}` : 'draft'),
            h(
              'td',
              {},
              rowAction('Open', name, async () => {
                const stored = answer(await api().GET('/v2/auto/queries/drafts/{draftId}', { params: { path: { draftId: draft.draftId } } })) as unknown as { request: unknown };
                open(draft.draftId, stored.request);
                return `Opened ${name}.`;
              }),
              draft.convertedQueryId
                ? undefined
                : rowAction('Activate', name, async () => {
                    const created = answer(await api().POST('/v2/auto/queries/drafts/{draftId}/convert', { params: { path: { draftId: draft.draftId } } })) as unknown as { queryId: string };
                    activated(created.queryId);
                    await refresh();
                    return `${name} is running as ${created.queryId}.`;
                  }),
              rowAction('Delete', name, async () => {
                answer(await api().DELETE('/v2/auto/queries/drafts/{draftId}', { params: { path: { draftId: draft.draftId } } }));
                await refresh();
                return `Deleted ${name}.`;
              }),
            ),
          );
        }),
      );
      if (page.drafts.length === 0) replaceChildren(list, h('tr', {}, h('td', { colspan: '4' }, 'No drafts: “Save draft” keeps the query here without running it.')));
    } catch (error) {
      failed('Listing the drafts', error);
    }
  };

  const save = async (request: unknown, draftId: string | undefined): Promise<string> => {
    const saved = answer(
      draftId === undefined
        ? await api().POST('/v2/auto/queries/drafts', { body: request as never })
        : await api().POST('/v2/auto/queries/drafts/{draftId}', { params: { path: { draftId } }, body: request as never }),
    ) as unknown as { draftId: string; validation?: { valid?: boolean; errors?: string[] } };
    const findings = saved.validation?.valid === false ? ` It does not validate yet: ${(saved.validation.errors ?? []).join('; ')}` : '';
    status.textContent = `Saved draft ${saved.draftId}.${findings}`;
    await refresh();
    return saved.draftId;
  };

  const element = h(
    'section',
    { className: 'drafts', 'aria-labelledby': 'drafts-title' },
    h('h2', { id: 'drafts-title' }, 'Drafts'),
    status,
    h('table', { id: 'drafts' }, h('caption', { className: 'visually-hidden' }, 'Your drafts, newest first'), h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Title'), h('th', { scope: 'col' }, 'Saved'), h('th', { scope: 'col' }, 'State'), h('th', { scope: 'col' }, 'Actions'))), list),
  );
  return { element, refresh, save };
}
