import { estimateCost, type QueryRequest, validate, type ValidationMode } from '@eql/core';
import { estimateText, validationJson, validationText } from '../format.js';
import { loadDocument } from '../input.js';
import type { CliIo } from '../io.js';
import { reportSyntaxErrors } from './validate.js';

export interface EstimateFlags {
  mode: ValidationMode;
  json: boolean;
}

/**
 * `eql estimate FILE`: the LLM call bounds and the cost in credits and USD (the price of create in
 * either access model). An invalid query has no estimate: its findings are printed and it exits 1.
 */
export async function estimateCommand(file: string, flags: EstimateFlags, io: CliIo): Promise<number> {
  const document = await loadDocument(file, io);
  if (reportSyntaxErrors(document, flags.json, io)) return 1;
  const result = validate(document.value, { mode: flags.mode });
  if (!result.valid) {
    io.stdout(flags.json ? validationJson(result, document.map) : validationText(io, document.name, flags.mode, result, document.map));
    return 1;
  }
  const { simulationLlmCallsEstimate, estimatedCost } = estimateCost((document.value as QueryRequest).query);
  io.stdout(
    flags.json
      ? `${JSON.stringify({ simulationLlmCallsEstimate, estimatedCost }, null, 2)}\n`
      : `${document.name}\n${estimateText(simulationLlmCallsEstimate, estimatedCost)}`,
  );
  return 0;
}
