import { type Observable, of, throwError } from 'rxjs';
import type { LlmAnalysis, LlmAnalyzeRequest, LlmJudgement, LlmJudgeRequest, LlmProvider } from './interfaces.js';
import type { LlmVerdictObservation, Observation } from './observations.js';

const normalize = (query: string) => query.trim().toLowerCase().replace(/\s+/g, ' ');

/**
 * An LLM provider that answers from recorded verdicts, so a replay of llm conditions is
 * deterministic: the judgement of a predicate at an instant is the latest recorded verdict for the
 * same predicate (compared without case or extra spaces) at or before that instant; with none, the
 * provider fails (the engine reports it and the condition keeps its state). Analyses of llm actions
 * are a fixed text that says they come from a replay, with no trade signals.
 */
export class RecordedLlmProvider implements LlmProvider {
  private readonly verdicts = new Map<string, LlmVerdictObservation[]>();

  constructor(observations: readonly Observation[]) {
    for (const observation of observations) {
      if (observation.source !== 'llm') continue;
      const key = normalize(observation.query);
      const list = this.verdicts.get(key) ?? [];
      list.push(observation);
      this.verdicts.set(key, list);
    }
  }

  judge(request: LlmJudgeRequest): Observable<LlmJudgement> {
    const list = this.verdicts.get(normalize(request.query)) ?? [];
    let found: LlmVerdictObservation | undefined;
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const candidate = list[mid] as LlmVerdictObservation;
      if (candidate.at <= request.at) {
        found = candidate;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (!found) return throwError(() => new Error(`no recorded verdict for "${request.query}" at or before ${new Date(request.at).toISOString()}`));
    return of(found.reasoning === undefined ? { confidence: found.confidence } : { confidence: found.confidence, reasoning: found.reasoning });
  }

  analyze(request: LlmAnalyzeRequest): Observable<LlmAnalysis> {
    return of({ response: `Replay analysis (recorded data, no model call) of "${request.trigger.title ?? request.trigger.queryId}".`, trades: [] });
  }
}
