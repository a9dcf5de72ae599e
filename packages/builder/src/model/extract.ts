/**
 * Finds the query request in a model's reply: the ```json fences first (the last one that parses
 * wins, as models restate), then any fence, then a balanced `{…}` in stray text. A bare query
 * (`{conditions, actions}`) is wrapped into a request; trailing commas are forgiven.
 */
import { isRecord } from '@eql/core';

/** The request found in a reply, or why there is none. */
export type Extracted = { request: Record<string, unknown> } | { problem: string };

const FENCE = /```[ \t]*([A-Za-z0-9_-]*)[ \t]*\r?\n([\s\S]*?)```/g;

/** The request in a reply, or what is wrong with the reply. Never throws. */
export function extractRequest(reply: string): Extracted {
  const candidates: string[] = [];
  const fences = [...reply.matchAll(FENCE)];
  const json = fences.filter((match) => /^(json|jsonc|json5)?$/i.test(match[1] ?? ''));
  for (const match of [...json].reverse()) candidates.push(match[2] ?? '');
  for (const match of fences) if (!json.includes(match)) candidates.push(match[2] ?? '');
  candidates.push(...balancedObjects(reply));
  let sawJson = false;
  for (const candidate of candidates) {
    const parsed = parse(candidate);
    if (parsed === undefined) continue;
    sawJson = true;
    const request = asRequest(parsed);
    if (request) return { request };
  }
  if (sawJson) return { problem: 'the JSON in the reply is not a query request: it needs {"query": {"conditions": …, "actions": […]}}' };
  return { problem: candidates.length > 0 ? 'the reply has a code block, but its JSON does not parse' : 'the reply has no ```json code block' };
}

function parse(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  for (const attempt of [trimmed, trimmed.replace(/,\s*([}\]])/g, '$1')]) {
    try {
      return JSON.parse(attempt) as unknown;
    } catch {
      // try the next form
    }
  }
  return undefined;
}

function asRequest(value: unknown): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  if (isRecord(value.query)) return value;
  if ('conditions' in value && 'actions' in value) return { query: value };
  return undefined;
}

/** Top-level `{…}` spans of the text, outside strings, longest first; at most a few. */
function balancedObjects(text: string): string[] {
  const found: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let index = 0; index < text.length && found.length < 8; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"' && depth > 0) inString = true;
    else if (char === '{') {
      if (depth === 0) start = index;
      depth += 1;
    } else if (char === '}' && depth > 0) {
      depth -= 1;
      if (depth === 0) found.push(text.slice(start, index + 1));
    }
  }
  return found.sort((a, b) => b.length - a.length);
}
