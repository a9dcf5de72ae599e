/**
 * Test helpers of the builder, for its tests and the host's route tests (as Langium ships
 * `langium/test`): a scripted chat model and a reader of the ```json blocks of a reply.
 *
 * @packageDocumentation
 */
import type { ChatModel, Completion, CompletionRequest } from '@eql/llm';

/** The ```json blocks of a Markdown reply, parsed. */
export function jsonBlocks(markdown: string): unknown[] {
  return [...markdown.matchAll(/```json\n([\s\S]*?)\n```/g)].map((match) => JSON.parse(match[1] as string) as unknown);
}

/** A scripted chat model: answers (or throws) from a list, in order, and records every request. */
export class ScriptedModel implements ChatModel {
  /** Every request received, copied. */
  readonly requests: CompletionRequest[] = [];

  constructor(private readonly script: Array<string | Error>) {}

  /**
   * Records `request` and answers with the next reply of the script (as the model `scripted`); rejects with
   * the next entry when it is an Error, and when the script has no more entries.
   */
  complete(request: CompletionRequest): Promise<Completion> {
    this.requests.push(structuredClone(request));
    const next = this.script.shift();
    if (next === undefined) return Promise.reject(new Error('the script has no more replies'));
    if (next instanceof Error) return Promise.reject(next);
    return Promise.resolve({ text: next, model: 'scripted' });
  }
}
