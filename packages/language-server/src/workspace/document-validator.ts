import { validate, type ValidationResult } from '@eql/core';
import { checkDocument } from '@eql/syntax';
import type { SettingsStore } from '../settings.js';
import type { ParseOutcome } from './eql-document.js';

/** Runs the core validator on a parsed document. */
export interface DocumentValidator {
  /**
   * The validator's result; with syntax errors, a result (not valid) holding the diagnostics of the parts
   * read without error (`checkDocument` of @eql/syntax), so every layer is reported at once.
   */
  validate(parse: ParseOutcome): ValidationResult | undefined;
}

/** The document validator of the server: the core validator with the mode and served data of the settings. */
export class DefaultDocumentValidator implements DocumentValidator {
  constructor(
    private readonly settings: SettingsStore,
    private readonly now: () => number = Date.now,
  ) {}

  validate(parse: ParseOutcome): ValidationResult | undefined {
    const { mode, served } = this.settings.current.validation;
    const options = served ? { mode, now: this.now(), served } : { mode, now: this.now() };
    // A document that parses is validated as it is (the diagnostic provider places the findings once).
    if (parse.errors.length === 0 && parse.value !== undefined) return validate(parse.value, options);
    const check = checkDocument(parse, options);
    if (parse.partial === undefined) return undefined;
    return { valid: false, errors: [], warnings: [], diagnostics: check.diagnostics.map(({ diagnostic }) => diagnostic) };
  }
}
