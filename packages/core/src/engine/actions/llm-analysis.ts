import { catchError, defer, from, map, type Observable, switchMap, take, throwError } from 'rxjs';
import type { Action, CallbackAction } from '../../generated/eql-types.js';
import { isRecord } from '../../util/json-pointer.js';
import {
  ActionError,
  type ActionContext,
  type ActionExecutor,
  type ActionOutcome,
  type LlmAnalysis,
  type LlmProvider,
  type LlmSession,
  type StateStore,
} from '../interfaces.js';
import { isoTime, settle } from '../maybe.js';

/** What the llm action executor needs: the provider, the store that records sessions and an id source. */
export interface LlmActionOptions {
  llm: LlmProvider | undefined;
  store: StateStore;
  /** New ids for the LLM sessions it records. */
  newId: () => string;
  /** Whether the step is the query's first action: only those record LLM sessions (spec 2.3). */
  isFirstStep: (queryId: string, stepId: string) => boolean;
}

/**
 * llm: runs the analysis through the LlmProvider. For a query whose first action is llm, the run is
 * recorded as an LLM session (spec 2.8), completed or failed. The analysis (text and trade signals)
 * is the outcome, which the engine hands to the step's callback action. A provider failure is
 * `LLM_ACTION_UPSTREAM_ERROR`.
 */
export class LlmActionExecutor implements ActionExecutor {
  constructor(private readonly options: LlmActionOptions) {}

  execute(action: Action | CallbackAction, context: ActionContext): Observable<ActionOutcome> {
    return defer(() => {
      const llm = this.options.llm;
      if (!llm) return throwError(() => new ActionError('LLM_NOT_CONFIGURED', 'no LLM provider is configured for llm actions'));
      const params = isRecord(action.params) ? action.params : {};
      const analysisType = typeof params.analysisType === 'string' ? params.analysisType : 'chat';
      const speed = params.speed === 'expert' || params.speed === 'adaptive' ? params.speed : 'fast';
      const prompt = typeof params.prompt === 'string' ? params.prompt : defaultPrompt(context);
      const assetMetadata = isRecord(params.assetMetadata)
        ? Object.fromEntries(Object.entries(params.assetMetadata).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
        : undefined;
      const startedAt = context.now();
      const request = { prompt, analysisType, speed, trigger: context.trigger, ...(assetMetadata ? { assetMetadata } : {}) } as const;
      return from(llm.analyze(request)).pipe(
        take(1),
        catchError((error: unknown) =>
          this.record(context, prompt, analysisType, startedAt, undefined).pipe(
            switchMap(() =>
              throwError(() => new ActionError('LLM_ACTION_UPSTREAM_ERROR', `the LLM provider failed: ${error instanceof Error ? error.message : String(error)}`, true)),
            ),
          ),
        ),
        switchMap((analysis) =>
          this.record(context, prompt, analysisType, startedAt, analysis).pipe(
            map((sessionId) => ({
              result: { ...(sessionId === undefined ? {} : { sessionId }), trades: analysis.trades.length, response: analysis.response.slice(0, 2000) },
              analysis,
            })),
          ),
        ),
      );
    });
  }

  /** Records the session (first steps only); gives its id. */
  private record(context: ActionContext, prompt: string, analysisType: string, startedAt: number, analysis: LlmAnalysis | undefined): Observable<string | undefined> {
    if (!this.options.isFirstStep(context.trigger.queryId, context.stepId)) return settle(undefined);
    const status = analysis ? 'completed' : 'failed';
    const session: LlmSession = {
      sessionId: this.options.newId(),
      queryId: context.trigger.queryId,
      title: context.trigger.title ?? null,
      analysisType,
      status,
      createdAt: isoTime(startedAt),
      executedAt: isoTime(context.now()),
      messages: [
        {
          query: prompt,
          response: analysis?.response ?? null,
          status,
          analysisType,
          timestamp: isoTime(context.now()),
          trades: analysis?.trades ?? [],
        },
      ],
    };
    return settle(this.options.store.saveSession(session)).pipe(map(() => session.sessionId));
  }
}

function defaultPrompt(context: ActionContext): string {
  const { trigger } = context;
  const states = trigger.conditionStates
    .map((state) => `${[state.source, state.method].filter(Boolean).join('.')}${state.value === undefined ? '' : ` = ${state.value}`}`)
    .join('; ');
  return `The query "${trigger.title ?? trigger.queryId}" triggered at ${isoTime(trigger.firedAt)} (${states}). Analyse what this means and what to do.`;
}
