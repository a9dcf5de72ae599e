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

/** Parameters of the `eql/convert` request: the document, and the form to convert it to (by default its other form). */
export interface ConvertParams {
  uri: string;
  to?: DocumentForm;
}

/**
 * The result of `eql/convert`: the converted text with its language id and the URI it would be saved to, or the
 * problems that kept the document from converting.
 */
export type ConvertResult =
  | { ok: true; text: string; to: DocumentForm; languageId: string; targetUri: string }
  | { ok: false; to: DocumentForm; problems: string[] };

/** Parameters of the `eql/estimate` request: the document to estimate. */
export interface EstimateParams {
  uri: string;
}

/** The result of `eql/estimate`: the cost summary, or null when the document is not open or holds no query to estimate. */
export type EstimateResult = CostSummary | null;
