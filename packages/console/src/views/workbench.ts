// The workbench: the editor, its findings, validation with the cost estimate, and create.
import { isTradeFlavouredQuery } from '@eql/core';
import { EqlEditor } from '../editor/eql-editor.js';
import type { LanguageClient } from '../lsp/language-client.js';
import { errorText, h, replaceChildren } from '../dom.js';
import type { Session } from '../session.js';
import { EXAMPLES, exampleText } from './examples.js';
import { previewView } from './preview.js';

export interface Workbench {
  element: HTMLElement;
  editor: EqlEditor;
  /** Shows a stored request (a draft's) in the editor, in the JSON form; `draftId` is where "Save draft" saves it. */
  load(request: unknown, draftId: string | undefined): Promise<void>;
}

/** Where the workbench saves drafts (views/drafts.ts). */
export interface DraftSaver {
  save(request: unknown, draftId: string | undefined): Promise<string>;
}

type ValidateAnswer = Awaited<ReturnType<Session['client']['validateQuery']>>;

/** How long the text must rest, free of the editor's errors, before the host is asked for its verdict. */
const HOST_VERDICT_DELAY_MS = 600;

/** The request in the editor, as the host takes it: the JSON value, or the text form as a string. */
function requestOf(editor: EqlEditor): unknown {
  if (editor.currentForm === 'text') return editor.text;
  return JSON.parse(editor.text) as unknown;
}

export function workbenchView(session: () => Session, client: LanguageClient, drafts: DraftSaver, onCreated: (queryId: string) => void): Workbench {
  /** The draft the editor's query came from (or was saved as). */
  let draftId: string | undefined;
  const editorHost = h('div', { className: 'editor', id: 'editor' });
  const editor = new EqlEditor(editorHost, client, { form: 'json', text: exampleText(0), label: 'EQL query editor' });
  const findings = h('p', { id: 'findings', className: 'findings', role: 'status', 'aria-live': 'polite' }, 'Checking…');
  // The host's verdict beside the editor's: what the host refuses that the editor cannot know (a symbol its
  // feeds do not serve, a plan's limits), asked once the editor finds no error and the text has settled.
  const hostVerdict = h('p', { id: 'host-verdict', className: 'host-verdict', role: 'status', 'aria-live': 'polite' });
  let hostTimer: ReturnType<typeof setTimeout> | undefined;
  /** The text the verdict shown is about, and the number of the last question (a late answer to an older one is dropped). */
  let judgedText: string | undefined;
  let asked = 0;
  const showHostVerdict = (verdict: 'accepts' | 'refuses' | 'unknown' | 'asking' | '', text: string) => {
    hostVerdict.dataset.verdict = verdict;
    hostVerdict.textContent = text;
  };
  const askHost = async (): Promise<void> => {
    const text = editor.text;
    if (text === judgedText) return;
    const ask = ++asked;
    let request: unknown;
    try {
      request = requestOf(editor);
    } catch {
      return showHostVerdict('', '');
    }
    showHostVerdict('asking', 'Asking the host…');
    try {
      const answer = await session().checker.validateQuery(request as never);
      if (ask !== asked) return;
      judgedText = text;
      const [first, ...more] = answer.errors;
      showHostVerdict(answer.valid ? 'accepts' : 'refuses', answer.valid ? 'The host accepts it.' : `The host refuses it: ${first ?? 'validate for its reasons'}${more.length > 0 ? ` (and ${more.length} more)` : ''}`);
    } catch (error) {
      if (ask !== asked) return;
      showHostVerdict('unknown', `The host did not say: ${errorText(error)}`);
    }
  };
  editor.onFindings(({ errors, warnings }) => {
    findings.textContent = errors === 0 && warnings === 0 ? 'No problems found.' : `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}.`;
    findings.dataset.errors = String(errors);
    clearTimeout(hostTimer);
    if (errors > 0) {
      // The editor's errors come first; a verdict about another text would mislead.
      asked += 1;
      judgedText = undefined;
      return showHostVerdict('', '');
    }
    hostTimer = setTimeout(() => void askHost(), HOST_VERDICT_DELAY_MS);
  });
  const formLabel = h('span', { id: 'form-label' }, 'JSON');
  const result = h('section', { id: 'validation', className: 'panel', 'aria-labelledby': 'validation-title', 'aria-live': 'polite' }, h('h2', { id: 'validation-title' }, 'Validation and cost'), h('p', {}, 'Validate to see what the host says and what the query costs.'));
  const problems = h('p', { id: 'editor-status', className: 'status', role: 'alert' });

  const example = h('select', { id: 'example', 'aria-label': 'Load an example' }, ...EXAMPLES.map((entry, index) => h('option', { value: String(index) }, entry.name)));
  example.addEventListener('change', () => {
    draftId = undefined;
    if (editor.currentForm !== 'json') void editor.switchForm().then(() => editor.setText(exampleText(Number(example.value))));
    else editor.setText(exampleText(Number(example.value)));
  });

  // A verdict is about the text it judged: once the text changes it says so, rather than vouch for the new one.
  editor.onEdit(() => {
    const verdict = result.querySelector('#validation-verdict');
    if (verdict === null || verdict.classList.contains('stale')) return;
    verdict.className = 'stale';
    verdict.textContent = 'Edited since the last validation: validate again for the host’s verdict.';
    result.querySelector('#estimate')?.remove();
    for (const list of result.querySelectorAll('ul')) list.remove();
  });

  const showValidation = (answer: ValidateAnswer): void => {
    const list = (items: string[], className: string) => (items.length === 0 ? undefined : h('ul', { className }, ...items.map((item) => h('li', {}, item))));
    const cost = answer.estimatedCost;
    replaceChildren(
      result,
      h('h2', { id: 'validation-title' }, 'Validation and cost'),
      h('p', { className: answer.valid ? 'ok' : 'bad', id: 'validation-verdict' }, answer.valid ? 'Valid: the host accepts this query.' : 'Not valid: the host refuses this query.'),
      list(answer.errors, 'errors'),
      list(answer.warnings, 'warnings'),
      cost
        ? h(
            'dl',
            { className: 'estimate', id: 'estimate' },
            h('dt', {}, 'Estimated credits'),
            h('dd', { id: 'estimate-credits' }, String(cost.credits)),
            h('dt', {}, 'Estimated price'),
            h('dd', { id: 'estimate-price' }, cost.price),
            ...(answer.simulationLlmCallsEstimate ? [h('dt', {}, 'LLM calls, upper bounds'), h('dd', { id: 'estimate-llm-calls' }, llmCallsText(answer.simulationLlmCallsEstimate))] : []),
          )
        : undefined,
    );
  };

  const validate = async (): Promise<ValidateAnswer | undefined> => {
    problems.textContent = '';
    try {
      const answer = await session().client.validateQuery(requestOf(editor) as never);
      showValidation(answer);
      return answer;
    } catch (error) {
      problems.textContent = error instanceof SyntaxError ? `The JSON does not parse: ${error.message}` : `Validation failed: ${errorText(error)}`;
      return undefined;
    }
  };

  const create = async (): Promise<void> => {
    const answer = await validate();
    if (!answer?.valid) return;
    const client = session().client;
    const request = requestOf(editor) as never;
    try {
      // A query that trades needs the exchange preflight first (spec 3). Done before the create: a signed
      // request sent twice within one second would be the same signature, which the host takes once.
      const json = editor.currentForm === 'json' ? (request as { query?: unknown }) : ((await editor.requestJson()) as { query?: unknown });
      if (isTradeFlavouredQuery(json.query)) await client.listExchanges();
      const created = await client.createQuery(request);
      problems.textContent = `Created query ${created.queryId}.`;
      onCreated(created.queryId);
    } catch (error) {
      const text = errorText(error);
      problems.textContent = /signature|hmac/i.test(text) && session().hmacSecret === undefined ? `This query must be signed: sign in with your HMAC secret too. (${text})` : `Create failed: ${text}`;
    }
  };

  const preview = previewView(session, client);
  const runPreview = async (): Promise<void> => {
    problems.textContent = '';
    try {
      await preview.run(await editor.requestJson());
    } catch (error) {
      problems.textContent = `Preview failed: ${errorText(error)}`;
    }
  };

  const saveDraft = async (): Promise<void> => {
    problems.textContent = '';
    try {
      draftId = await drafts.save(await editor.requestJson(), draftId);
    } catch (error) {
      problems.textContent = error instanceof SyntaxError ? `The JSON does not parse: ${error.message}` : `Saving the draft failed: ${errorText(error)}`;
    }
  };

  const load = async (request: unknown, fromDraft: string | undefined): Promise<void> => {
    if (editor.currentForm !== 'json') await editor.switchForm();
    formLabel.textContent = 'JSON';
    editor.setText(`${JSON.stringify(request, null, 2)}\n`);
    draftId = fromDraft;
  };

  const button = (id: string, label: string, action: () => unknown, title?: string) => h('button', { type: 'button', id, title, onClick: () => void action() }, label);
  const toolbar = h(
    'div',
    { className: 'toolbar', role: 'toolbar', 'aria-label': 'Query actions' },
    example,
    button('switch-form', 'JSON ⇄ text', async () => {
      const switched = await editor.switchForm();
      if (!switched.ok) problems.textContent = `Cannot convert: ${switched.problems.join('; ')}`;
      else formLabel.textContent = editor.currentForm === 'json' ? 'JSON' : 'Text form';
    }),
    button('problems', 'Problems', () => editor.openProblems(), 'List the problems and their quick fixes (F2)'),
    button('format', 'Format', () => editor.format()),
    button('validate', 'Validate', validate),
    button('preview-run', 'Preview', runPreview, 'Replay the host’s recording: when would it have fired?'),
    button('create', 'Create query', create),
    button('save-draft', 'Save draft', saveDraft, 'Keep the query on the host without running it'),
  );

  const element = h(
    'section',
    { className: 'workbench', 'aria-labelledby': 'workbench-title' },
    h('h2', { id: 'workbench-title' }, 'Query ', h('small', {}, '(', formLabel, ')')),
    toolbar,
    editorHost,
    h('div', { className: 'verdicts' }, findings, hostVerdict),
    problems,
    result,
    preview.element,
  );
  return { element, editor, load };
}

/** The LLM call upper bounds of an estimate, as people read them: `conditions 2 (fast 2); actions 1 (expert 1)`. */
export function llmCallsText(estimate: { conditionCallsUpperBound: number; actionCallsUpperBound: number; conditionCallsBySpeed?: Record<string, number>; actionCallsBySpeed?: Record<string, number> }): string {
  const bySpeed = (calls: Record<string, number> | undefined) => {
    const parts = Object.entries(calls ?? {}).filter(([, count]) => count > 0).map(([speed, count]) => `${speed} ${count.toLocaleString('en-US')}`);
    return parts.length > 0 ? ` (${parts.join(', ')})` : '';
  };
  return `conditions ${estimate.conditionCallsUpperBound.toLocaleString('en-US')}${bySpeed(estimate.conditionCallsBySpeed)}; actions ${estimate.actionCallsUpperBound.toLocaleString('en-US')}${bySpeed(estimate.actionCallsBySpeed)}`;
}
