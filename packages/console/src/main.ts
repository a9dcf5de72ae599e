// The console's entry: sign in, then the workbench (editor, validation, create), the queries and the
// live notifications. The language server starts in a web worker once, for the page's life.
import './styles.css';
import { h, replaceChildren } from './dom.js';
import { LanguageClient } from './lsp/language-client.js';
import { currentSession, restoreSession, type Session, signOut } from './session.js';
import { draftsView } from './views/drafts.js';
import { notificationsView } from './views/notifications.js';
import { queriesView } from './views/queries.js';
import { signInView } from './views/sign-in.js';
import { workbenchView } from './views/workbench.js';

const root = document.getElementById('app') ?? document.body;
let language: Promise<LanguageClient> | undefined;

function languageClient(): Promise<LanguageClient> {
  language ??= LanguageClient.start(new Worker(new URL('./lsp/language-worker.ts', import.meta.url), { type: 'module', name: 'eql-language-server' }));
  return language;
}

function showSignIn(): void {
  document.title = 'Sign in — EQL console';
  replaceChildren(root, signInView((session) => void showConsole(session)));
  root.querySelector<HTMLInputElement>('#api-key')?.focus();
}

async function showConsole(session: Session): Promise<void> {
  document.title = 'EQL console';
  const active = (): Session => currentSession() ?? session;
  const queries = queriesView(active);
  const notifications = notificationsView();
  const showQuery = (queryId: string) => void queries.refresh().then(() => queries.select(queryId));
  let openDraft: (draftId: string, request: unknown) => void = () => undefined;
  const drafts = draftsView(active, (draftId, request) => openDraft(draftId, request), showQuery);
  const workbench = workbenchView(active, await languageClient(), drafts, showQuery);
  openDraft = (draftId, request) => void workbench.load(request, draftId);
  const header = h(
    'header',
    { className: 'top' },
    h('a', { href: '#main', className: 'skip' }, 'Skip to the editor'),
    h('span', { className: 'brand' }, 'EQL console'),
    h('span', { className: 'who' }, `key …${session.apiKey.slice(-4)}${session.hmacSecret ? ' (signing)' : ''}`),
    h(
      'button',
      {
        type: 'button',
        id: 'sign-out',
        onClick: () => {
          notifications.stop();
          queries.stop();
          workbench.editor.dispose();
          signOut();
          showSignIn();
        },
      },
      'Sign out',
    ),
  );
  replaceChildren(root, header, h('main', { id: 'main', className: 'console' }, workbench.element, queries.element, drafts.element, notifications.element));
  notifications.start(session, (event) => {
    if (event.event === 'notification:new') void queries.refresh();
    if (event.event === 'query:state') {
      const data = event.data as { queryId?: string; conditionStates?: unknown };
      if (data.queryId) queries.showStates(data.queryId, data.conditionStates);
    }
    if (event.event === 'end') void queries.refresh();
  });
  await Promise.all([queries.refresh(), drafts.refresh()]);
}

const restored = restoreSession();
if (restored) void showConsole(restored);
else showSignIn();
