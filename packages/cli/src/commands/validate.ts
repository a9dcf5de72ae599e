import { validate, type ValidationMode } from '@eql/core';
import { validationText } from '../format.js';
import { loadDocument } from '../input.js';
import type { CliIo } from '../io.js';

export interface ValidateFlags {
  mode: ValidationMode;
  json: boolean;
}

/** `eql validate FILE|-`: exit 0 valid, 1 invalid (2 for unusable input, raised by loadDocument). */
export async function validateCommand(file: string, flags: ValidateFlags, io: CliIo): Promise<number> {
  const document = await loadDocument(file, io);
  const result = validate(document.value, { mode: flags.mode });
  io.stdout(flags.json ? `${JSON.stringify(result, null, 2)}\n` : validationText(io, document.name, flags.mode, result));
  return result.valid ? 0 : 1;
}
