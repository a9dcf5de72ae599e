import type { QueryRequest, ValidationResult } from '@eql/core';

/** What a turn found out, whoever read it (the grammar or the model): what the reply then says. */
export interface TurnFindings {
  /** A query the validator accepted, and its validation. */
  request?: QueryRequest;
  validation?: ValidationResult;
  kind: 'new' | 'amended' | 'confirmed' | 'none';
  questions: string[];
  notes: string[];
  /** Phrases not understood. */
  unknown: string[];
  /** What was understood when something was not: offered, not adopted ("yes" adopts it). */
  partial?: QueryRequest;
  /** Trade steps refused in payment mode. */
  refused: string[];
  /** A request the validator refused (its result), when nothing else was wrong. */
  rejected?: ValidationResult;
}
