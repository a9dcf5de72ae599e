import { costBreakdown, type CostLine, estimateCost, type QueryRequest, usdcAtomicUnitsOfCredits, validate, type ValidationMode } from '@eql/core';
import { estimateText, validationJson, validationText } from '../format.js';
import { loadDocument } from '../input.js';
import type { CliIo } from '../io.js';
import { reportSyntaxErrors } from './validate.js';
import { terminalText } from '../terminal-text.js';

export interface EstimateFlags {
  mode: ValidationMode;
  json: boolean;
}

/** USDC (6 decimals) of atomic units, as text: 1125000n → 1.125. */
function usdcText(atomic: bigint): string {
  const whole = atomic / 1_000_000n;
  const fraction = (atomic % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  return fraction === '' ? `${whole}` : `${whole}.${fraction}`;
}

/** The lines of the breakdown in columns: where, what, calls, credits. */
function breakdownText(lines: CostLine[]): string {
  const rows = lines.map((line) => [line.part === 'base' ? 'base' : terminalText(line.pointer), terminalText(line.what + (line.speed ? ` (${line.speed})` : '')), line.part === 'base' ? '' : `${line.calls} call${line.calls === 1 ? '' : 's'}`, `${line.credits} credit${line.credits === 1 ? '' : 's'}`]);
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => `    ${row.slice(0, 3).map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}  ${row[3]!.padStart(12)}`.trimEnd()).join('\n') + '\n';
}

/**
 * `eql estimate FILE`: the LLM call bounds and the cost in credits and USD (the price of create in
 * either access model), broken down into the base, each llm condition and each llm step; with `--mode
 * payment` also the USDC an agent pays (6 decimals; 1 credit = 0.009 USDC). An invalid query has no
 * estimate: its findings are printed and it exits 1.
 */
export async function estimateCommand(file: string, flags: EstimateFlags, io: CliIo): Promise<number> {
  const document = await loadDocument(file, io);
  if (reportSyntaxErrors(document, flags.json, io)) return 1;
  const result = validate(document.value, { mode: flags.mode });
  if (!result.valid) {
    io.stdout(flags.json ? validationJson(result, document.map) : validationText(io, document.name, flags.mode, result, document.map));
    return 1;
  }
  const query = (document.value as QueryRequest).query;
  const { simulationLlmCallsEstimate, estimatedCost } = estimateCost(query);
  const breakdown = costBreakdown(query);
  const atomic = usdcAtomicUnitsOfCredits(estimatedCost.credits);
  const usdc = flags.mode === 'payment' ? { amount: usdcText(atomic), atomicUnits: atomic.toString() } : undefined;
  io.stdout(
    flags.json
      ? `${JSON.stringify({ simulationLlmCallsEstimate, estimatedCost, breakdown, ...(usdc ? { usdc } : {}) }, null, 2)}\n`
      : `${terminalText(document.name)}\n${estimateText(simulationLlmCallsEstimate, estimatedCost)}  breakdown:\n${breakdownText(breakdown)}${usdc ? `  an agent pays ${usdc.amount} USDC (${usdc.atomicUnits} atomic units) to create it (x402)\n` : ''}`,
  );
  return 0;
}
