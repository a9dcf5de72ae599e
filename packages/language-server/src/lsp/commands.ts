import type { DocumentForm } from '../workspace/document-form.js';
import type { CostSummary } from './cost.js';

/** Commands the server runs (`workspace/executeCommand`); each takes the document URI as its argument. */
export const COMMANDS = {
  convertToJson: 'eql.convertToJson',
  convertToText: 'eql.convertToText',
  estimate: 'eql.estimate',
} as const;

/** Requests of this server beyond LSP, for clients that want the result without side effects. */
export const REQUESTS = {
  /** `{uri, to?}` → `ConvertResult`: the document in the other form (or in `to`). */
  convert: 'eql/convert',
  /** `{uri}` → `CostSummary | null`. */
  estimate: 'eql/estimate',
} as const;

export interface ConvertParams {
  uri: string;
  to?: DocumentForm;
}

export type ConvertResult =
  | { ok: true; text: string; to: DocumentForm; languageId: string; targetUri: string }
  | { ok: false; to: DocumentForm; problems: string[] };

export interface EstimateParams {
  uri: string;
}

export type EstimateResult = CostSummary | null;
