/**
 * Text that came from a host or a file, made harmless on a terminal before it is printed for people.
 * A title, a message or a file name may carry control characters: ESC starts sequences that clear the
 * screen, retitle the window, rewrite the clipboard or move the cursor over earlier lines; CR and
 * backspace overwrite what was printed; C1 codes (U+0080 to U+009F, U+009B being a one-character CSI)
 * do the same on some terminals; bidirectional overrides and isolates reorder what is shown (an id
 * that reads differently from what it is). Each such character is written as an escape instead: `\n`,
 * `\r`, `\t`, or `\uXXXX` (the notation of a JSON string, so that a JSON text passed through keeps its
 * value). Everything else, the rest of Unicode included, is printed as it is.
 *
 * Only human output goes through it: `--json` prints JSON.stringify's text, which escapes every C0
 * character itself, and a document written out (`fmt`, `convert`) is printed exactly.
 */

// C0 but for \n, DEL and C1, the Arabic letter mark, LRM/RLM, embeddings and overrides (U+202A-U+202E),
// isolates (U+2066-U+2069), and the line and paragraph separators (line breaks few terminals show).
// eslint-disable-next-line no-control-regex -- matching control characters is what this is for
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- likewise
const UNSAFE_OR_NEWLINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escaped(character: string): string {
  return NAMED[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control, C1 and bidirectional formatting character escaped (see the file's
 * comment). A newline is escaped too, unless `lines` is set: a value printed on one line (a title, an
 * id) cannot start a line of its own that passes for the program's.
 */
export function terminalText(text: string, options: { lines?: boolean } = {}): string {
  return text.replace(options.lines === true ? UNSAFE : UNSAFE_OR_NEWLINE, escaped);
}
