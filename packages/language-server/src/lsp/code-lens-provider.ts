import type { CodeLens } from 'vscode-languageserver-types';
import type { ValidatedDocument } from '../workspace/eql-document.js';
import { COMMANDS } from './commands.js';
import { callsLine, costOf, costTitle } from './cost.js';

/** A lens on the first line with the estimated cost: `≈ 125 credits ($1.125) · LLM calls ≤ 24`. */
export interface CodeLensProvider {
  /** The cost lens of a document, or none when no cost can be estimated (no query could be read). */
  codeLenses(document: ValidatedDocument): CodeLens[];
}

/** The code lens provider of the server. */
export class DefaultCodeLensProvider implements CodeLensProvider {
  codeLenses(document: ValidatedDocument): CodeLens[] {
    const cost = costOf(document);
    if (cost === undefined) return [];
    const calls = cost.simulationLlmCallsEstimate;
    const bound = calls.conditionCallsUpperBound + calls.actionCallsUpperBound;
    const title = `${costTitle(cost)}${bound > 0 ? ` · LLM calls ≤ ${bound}` : ''}`;
    return [
      {
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        command: { title, command: COMMANDS.estimate, arguments: [document.uri] },
        data: { calls: callsLine(calls) },
      },
    ];
  }
}
