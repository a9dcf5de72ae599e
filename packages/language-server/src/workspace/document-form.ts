import { type DocumentForm, looksLikeJson } from '@eql/syntax';

export type { DocumentForm };

/** The LSP language ids of the two forms: `eql` for the text form, `eql-json` for JSON. */
export const LANGUAGE_IDS = { text: 'eql', json: 'eql-json' } as const;

/**
 * The form of a document: JSON for language id `eql-json`, a `*.eql.json` name or a JSON language
 * id; the text form for language id `eql` or a `*.eql` name; otherwise by content (`{` or `[` first).
 */
export function formOf(uri: string, languageId: string, text: string): DocumentForm {
  const path = uri.toLowerCase().replace(/[?#].*$/, '');
  if (languageId === LANGUAGE_IDS.json || path.endsWith('.eql.json')) return 'json';
  if (languageId === 'json' || languageId === 'jsonc') return 'json';
  if (languageId === LANGUAGE_IDS.text || path.endsWith('.eql')) return 'text';
  return looksLikeJson(text) ? 'json' : 'text';
}

/** Where the other form of a document goes: `q.eql` ↔ `q.eql.json` (other names get the suffix added). */
export function convertedUri(uri: string, to: DocumentForm): string {
  const match = /^(.*?)(\.eql\.json|\.eql|\.json)?([?#].*)?$/i.exec(uri);
  const stem = match?.[1] ?? uri;
  const rest = match?.[3] ?? '';
  return `${stem}${to === 'json' ? '.eql.json' : '.eql'}${rest}`;
}
