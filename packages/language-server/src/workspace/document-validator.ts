import { validate, type ValidationResult } from '@eql/core';
import type { SettingsStore } from '../settings.js';
import type { ParseOutcome } from './eql-document.js';

/** Runs the core validator on a parsed document. */
export interface DocumentValidator {
  /** The validator's result, or undefined when the document has syntax errors (they stop semantic checks). */
  validate(parse: ParseOutcome): ValidationResult | undefined;
}

/** The document validator of the server: the core validator with the mode and served data of the settings. */
export class DefaultDocumentValidator implements DocumentValidator {
  constructor(
    private readonly settings: SettingsStore,
    private readonly now: () => number = Date.now,
  ) {}

  validate(parse: ParseOutcome): ValidationResult | undefined {
    if (parse.errors.length > 0 || parse.value === undefined) return undefined;
    const { mode, served } = this.settings.current.validation;
    return validate(parse.value, served ? { mode, now: this.now(), served } : { mode, now: this.now() });
  }
}
