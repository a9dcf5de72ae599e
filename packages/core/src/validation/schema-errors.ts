import { closest, distance } from 'fastest-levenshtein';
import { operatorMeant } from '../language/operator-spellings.js';
import { isRecord, joinPointer, valueAtPointer } from '../util/json-pointer.js';
import type { DiagnosticCode } from './codes.js';
import type { Diagnostic, DiagnosticFix } from './diagnostic.js';
import { placeholderFor } from './placeholders.js';
import type { ErrorObject } from './schema-check.js';

/**
 * Turns ajv's errors into diagnostics people can act on: one per problem, a stable code, a message
 * that names what was expected (and the nearest valid spelling), and a JSON pointer to the spot.
 */

interface Override {
  code: string;
  message: string;
}

function overrideOf(error: ErrorObject): Override | undefined {
  const parent: unknown = error.parentSchema;
  const annotations = isRecord(parent) ? parent['x-diagnostics'] : undefined;
  const override = isRecord(annotations) ? annotations[error.keyword] : undefined;
  if (isRecord(override) && typeof override.code === 'string' && typeof override.message === 'string') {
    return { code: override.code, message: override.message };
  }
  return undefined;
}

const TYPE_WORDS: Record<string, string> = {
  number: 'a number',
  integer: 'a whole number',
  string: 'a string',
  object: 'an object',
  array: 'an array',
  boolean: 'true or false',
  null: 'null',
};

function typeWords(type: unknown): string {
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((name) => TYPE_WORDS[String(name)] ?? String(name)).join(' or ');
}

function quoteList(values: readonly unknown[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}

function suggestion(actual: unknown, candidates: readonly string[]): string | undefined {
  if (typeof actual !== 'string' || candidates.length === 0) return undefined;
  const best = closest(actual, [...candidates]);
  const limit = Math.max(2, Math.floor(actual.length / 3));
  return distance(actual.toLowerCase(), best.toLowerCase()) <= limit ? best : undefined;
}

function lastToken(pointer: string): string {
  return pointer.slice(pointer.lastIndexOf('/') + 1);
}

function parentPointer(pointer: string): string {
  return pointer.slice(0, pointer.lastIndexOf('/'));
}

/** Code and wording for an enum or const miss, by the field it is about. */
function enumDiagnostic(error: ErrorObject, document: unknown, allowed: readonly unknown[]): Diagnostic {
  const path = error.instancePath;
  const field = lastToken(path);
  const actual = error.data;
  const owner = valueAtPointer(document, parentPointer(path));
  const source = isRecord(owner) ? owner.source : undefined;
  const strings = allowed.filter((value): value is string => typeof value === 'string');
  const near = suggestion(actual, strings);
  const hint = near !== undefined ? ` (did you mean ${JSON.stringify(near)}?)` : '';
  const fix: DiagnosticFix | undefined =
    near !== undefined ? { title: `Change to ${JSON.stringify(near)}`, edits: [{ op: 'replace', path, value: near }] } : undefined;
  let code: DiagnosticCode = 'invalid-value';
  let message = `must be ${allowed.length === 1 ? JSON.stringify(allowed[0]) : `one of ${quoteList(allowed)}`}`;
  if (field === 'source' && isRecord(owner)) {
    code = 'unknown-source';
    message = `unknown source ${JSON.stringify(actual)}; expected one of ${quoteList(allowed)}`;
  } else if (field === 'method' && isRecord(owner) && typeof source === 'string') {
    code = 'unknown-method';
    message = `unknown method ${JSON.stringify(actual)} for source ${JSON.stringify(source)}; expected one of ${quoteList(allowed)}`;
  } else if (field === 'type' && isRecord(owner) && (path.includes('/actions/') || path.endsWith('/callback/action/type'))) {
    code = 'unknown-action-type';
    message = `unknown action type ${JSON.stringify(actual)}; expected one of ${quoteList(allowed)}`;
  }
  const diagnostic: Diagnostic = { code, severity: 'error', message: message + hint, path };
  if (fix) diagnostic.fix = fix;
  return diagnostic;
}

function numericStringFix(error: ErrorObject): DiagnosticFix | undefined {
  const expected = String(error.params.type ?? '');
  if (typeof error.data !== 'string' || !/number|integer/.test(expected)) return undefined;
  const trimmed = error.data.trim();
  if (trimmed === '' || !Number.isFinite(Number(trimmed))) return undefined;
  const value = Number(trimmed);
  if (expected === 'integer' && !Number.isInteger(value)) return undefined;
  return { title: `Use the number ${value}`, edits: [{ op: 'replace', path: error.instancePath, value }] };
}

function genericDiagnostic(error: ErrorObject, document: unknown): Diagnostic | undefined {
  const path = error.instancePath;
  const params = error.params as Record<string, unknown>;
  const error_ = (code: DiagnosticCode, message: string, at = path): Diagnostic => ({ code, severity: 'error', message, path: at });
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      const diagnostic = error_('missing-property', `missing required property ${JSON.stringify(missing)}`);
      const properties = isRecord(error.parentSchema) && isRecord(error.parentSchema.properties) ? error.parentSchema.properties : {};
      if (missing in properties) {
        const value = placeholderFor(missing, properties[missing]);
        diagnostic.fix = { title: `Add "${missing}" (${JSON.stringify(value)})`, edits: [{ op: 'replace', path: joinPointer(path, missing), value }] };
      }
      return diagnostic;
    }
    case 'dependentRequired':
      return error_(
        'missing-property',
        `${JSON.stringify(params.property)} needs ${JSON.stringify(params.missingProperty)} as well`,
      );
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const owner = valueAtPointer(document, path);
      const properties = isRecord(error.parentSchema) && isRecord(error.parentSchema.properties) ? Object.keys(error.parentSchema.properties) : [];
      const at = joinPointer(path, extra);
      if (extra === 'method' && isRecord(owner) && (owner.source === 'tweet' || owner.source === 'news')) {
        return {
          ...error_('unknown-property', `a ${owner.source} condition takes no method; remove it`, at),
          fix: { title: 'Remove "method"', edits: [{ op: 'remove', path: at }] },
        };
      }
      const near = suggestion(extra, properties);
      const hint =
        near !== undefined ? `; did you mean ${JSON.stringify(near)}?` : properties.length > 0 ? ` (allowed: ${properties.join(', ')})` : '';
      return error_('unknown-property', `unknown property ${JSON.stringify(extra)}${hint}`, at);
    }
    case 'type': {
      const diagnostic = error_('wrong-type', `must be ${typeWords(params.type)}`);
      const fix = numericStringFix(error);
      return fix ? { ...diagnostic, fix } : diagnostic;
    }
    case 'enum':
      return enumDiagnostic(error, document, (params.allowedValues as unknown[]) ?? []);
    case 'const':
      return enumDiagnostic(error, document, [params.allowedValue]);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return error_('out-of-range', `must be ${String(params.comparison)} ${String(params.limit)}`);
    case 'multipleOf':
      return error_('out-of-range', `must be a multiple of ${String(params.multipleOf)}`);
    case 'minLength':
      return params.limit === 1
        ? error_('empty-string', 'must not be empty')
        : error_('too-short', `must be at least ${String(params.limit)} characters long`);
    case 'maxLength':
      return error_('too-long', `must be at most ${String(params.limit)} characters long`);
    case 'pattern':
      if (typeof error.propertyName === 'string') {
        return error_('invalid-property-name', `invalid name ${JSON.stringify(error.propertyName)}`, joinPointer(path, error.propertyName));
      }
      return error_('invalid-format', `does not match the expected form ${String(params.pattern)}`);
    case 'format':
      return params.format === 'date-time'
        ? error_('invalid-date-time', 'must be an ISO 8601 date-time with a time zone, such as 2026-01-01T09:00:00Z')
        : error_('invalid-format', `must be a valid ${String(params.format)}`);
    case 'minItems':
      return error_('too-few-items', `must have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`);
    case 'maxItems':
      return error_('too-many-items', `must have at most ${String(params.limit)} items`);
    case 'maxProperties':
      return error_('too-many-properties', `must have at most ${String(params.limit)} entries`);
    case 'oneOf':
      return error_('ambiguous-shape', 'matches none or several of the allowed shapes');
    case 'discriminator': {
      const tag = String(params.tag);
      if (params.error === 'tag') return error_('wrong-type', `${JSON.stringify(tag)} must be a string`, joinPointer(path, tag));
      return error_('invalid-value', `unknown ${tag} ${JSON.stringify(params.tagValue)}`, joinPointer(path, tag));
    }
    default:
      return error_('schema', `${error.message ?? 'is invalid'}`);
  }
}

/** Keywords whose failure only echoes errors reported in their subschemas. */
const ECHO_KEYWORDS = new Set(['if', 'propertyNames', 'anyOf']);

export function schemaDiagnostics(errors: readonly ErrorObject[], document: unknown): Diagnostic[] {
  // A oneOf with its own message replaces the errors of its branches.
  const covered = errors
    .filter((error) => error.keyword === 'oneOf' && overrideOf(error) !== undefined)
    .map((error) => `${error.schemaPath}/`);
  const reportedAt = new Set(errors.filter((e) => e.keyword !== 'discriminator').map((e) => `${e.keyword}|${e.instancePath}|${String(e.params.missingProperty ?? '')}`));

  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  const push = (diagnostic: Diagnostic) => {
    // ajv can report one problem along two schema paths; keep one of each (code, path, message).
    const key = `${diagnostic.code}\u0000${diagnostic.path}\u0000${diagnostic.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    diagnostics.push(diagnostic);
  };
  for (const error of errors) {
    if (ECHO_KEYWORDS.has(error.keyword)) continue;
    if (covered.some((prefix) => error.schemaPath.startsWith(prefix))) continue;
    if (error.keyword === 'discriminator') {
      const tag = String(error.params.tag);
      const tagPath = joinPointer(error.instancePath, tag);
      // The enum / const / required error on the tag itself already says it better.
      if (
        reportedAt.has(`enum|${tagPath}|`) ||
        reportedAt.has(`const|${tagPath}|`) ||
        reportedAt.has(`required|${error.instancePath}|${tag}`) ||
        reportedAt.has(`type|${tagPath}|`)
      ) {
        continue;
      }
    }
    const override = overrideOf(error);
    if (override) {
      const meant = override.code === 'unknown-operator' ? operatorMeant(error.data) : undefined;
      if (meant === undefined) push({ code: override.code, severity: 'error', message: override.message, path: error.instancePath });
      else {
        const fix: DiagnosticFix = { title: `Change to ${JSON.stringify(meant)}`, edits: [{ op: 'replace', path: error.instancePath, value: meant }] };
        push({ code: override.code, severity: 'error', message: `${override.message} (did you mean ${JSON.stringify(meant)}?)`, path: error.instancePath, fix });
      }
      continue;
    }
    const diagnostic = genericDiagnostic(error, document);
    if (diagnostic) push(diagnostic);
  }
  return diagnostics;
}
