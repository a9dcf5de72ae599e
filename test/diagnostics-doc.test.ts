import { readFileSync } from 'node:fs';
import { DIAGNOSTIC_CODES, validate, type ValidateOptions } from '@eql/core';
import { loadDocument } from '@eql/syntax';
import { describe, expect, it } from 'vitest';

/**
 * docs/diagnostics.md has a `### <code>` section for each code of DIAGNOSTIC_CODES and no other, and the
 * failing example of each section (its first ```json or ```eql block, validated with the options of a
 * `<!-- validate-options: {...} -->` comment before it) reports that code, so the page cannot rot.
 * A section without an example says `<!-- no-example -->`; only the codes below, which the current
 * schema cannot produce, may.
 */

const DOC = readFileSync(new URL('../docs/diagnostics.md', import.meta.url), 'utf8');
const WITHOUT_EXAMPLE = ['internal-error', 'too-short', 'invalid-format', 'too-few-items', 'too-many-items', 'ambiguous-shape', 'schema'];

interface Section {
  code: string;
  body: string;
}

function sections(markdown: string): Section[] {
  const parts = markdown.split(/^### /m).slice(1);
  return parts.map((part) => {
    const newline = part.indexOf('\n');
    return { code: part.slice(0, newline).trim(), body: part.slice(newline + 1).split(/^## /m)[0] ?? '' };
  });
}

interface Example {
  form: 'json' | 'text';
  text: string;
  options: ValidateOptions;
}

function exampleOf(section: Section): Example | undefined {
  const block = /(?:<!-- validate-options: (\{.*\}) -->\s*)?```(json|eql)\n([\s\S]*?)\n```/.exec(section.body);
  if (!block) return undefined;
  const options = block[1] === undefined ? {} : (JSON.parse(block[1]) as ValidateOptions);
  return { form: block[2] === 'json' ? 'json' : 'text', text: block[3] ?? '', options };
}

/** The codes a document reports: `syntax` when it does not parse, else the validator's. */
function codesOf(example: Example): string[] {
  const document = loadDocument(example.text, example.form);
  if (document.errors.length > 0) return ['syntax'];
  return validate(document.value, { now: Date.UTC(2026, 0, 1), ...example.options }).diagnostics.map((diagnostic) => diagnostic.code);
}

const found = sections(DOC);

describe('docs/diagnostics.md', () => {
  it('has one section for each diagnostic code, and no other', () => {
    const codes = found.map((section) => section.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect([...codes].sort()).toEqual(Object.keys(DIAGNOSTIC_CODES).sort());
  });

  it('gives each section a fix, and an example unless the code cannot be produced today', () => {
    for (const section of found) {
      expect(section.body, section.code).toContain('**Fix:**');
      if (WITHOUT_EXAMPLE.includes(section.code)) expect(section.body, section.code).toContain('<!-- no-example -->');
      else expect(exampleOf(section), section.code).toBeDefined();
    }
  });

  it.each(found.filter((section) => !WITHOUT_EXAMPLE.includes(section.code)).map((section) => [section.code, section] as const))(
    'the example of %s reports it',
    (code, section) => {
      const example = exampleOf(section);
      expect(example).toBeDefined();
      if (example) expect(codesOf(example)).toContain(code);
    },
  );

  it('links each code of the summaries to its section', () => {
    for (const [, code] of DOC.matchAll(/\[`[a-z-]+`\]\(#([a-z-]+)\)/g)) expect(Object.keys(DIAGNOSTIC_CODES)).toContain(code);
  });
});
