import { readFileSync } from 'node:fs';
import { extractContracts, extractTokens, normalizeToken, parseIngestLines, type IngestItem } from '../../src/index.js';

/** The demo dataset as parsed items, and a brute-force reference of the market queries over them. */
export const DEMO_PATH = new URL('../../../../fixtures/mentions/demo.jsonl', import.meta.url).pathname;

export function demoItems(): IngestItem[] {
  const parsed = parseIngestLines(readFileSync(DEMO_PATH, 'utf8'));
  if (parsed.problems.length > 0) throw new Error(JSON.stringify(parsed.problems.slice(0, 3)));
  return parsed.items;
}

export type Post = Extract<IngestItem, { kind: 'post' }>;

export const postsOf = (items: IngestItem[]): Post[] => items.filter((item): item is Post => item.kind === 'post');

export function tokensOfPost(post: Post): string[] {
  const tokens = extractTokens(post.text).map((mention) => mention.token);
  for (const raw of post.tokens ?? []) {
    const token = normalizeToken(raw);
    if (token && !tokens.includes(token)) tokens.push(token);
  }
  return tokens;
}

const words = (text: string): string[] => (text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** Whether the text has the keyword's words in a row (the FTS phrase semantics). */
export function hasPhrase(text: string, keyword: string): boolean {
  const needle = words(keyword);
  if (needle.length === 0) return false;
  const haystack = words(text);
  outer: for (let i = 0; i + needle.length <= haystack.length; i += 1) {
    for (let j = 0; j < needle.length; j += 1) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

export function referenceTokenCounts(posts: Post[], from: number, to: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const post of posts) {
    if (post.mentionedAt < from || post.mentionedAt >= to) continue;
    for (const token of tokensOfPost(post)) counts.set(token, (counts.get(token) ?? 0) + 1);
  }
  return counts;
}

export function referenceContracts(texts: Array<{ text: string; at: number }>, from: number, to: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { text, at } of texts) {
    if (at < from || at >= to) continue;
    for (const contract of extractContracts(text)) counts.set(contract.address, (counts.get(contract.address) ?? 0) + 1);
  }
  return counts;
}
