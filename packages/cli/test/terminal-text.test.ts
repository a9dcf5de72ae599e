import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { main, type CliIo } from '../src/index.js';
import { terminalText } from '../src/terminal-text.js';

// Issue 45, point 9: text from a host or a file is printed for people with its control characters
// escaped. Laws over any string, and the escapes' notation keeps a JSON text's value.

/** What must never reach the terminal raw (newlines aside, when lines are kept). */
// eslint-disable-next-line no-control-regex -- control characters are what the test looks for
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** Any code point, and often one of those that matter here. */
const character = fc.oneof(fc.constantFrom('\x1b', '\x07', '\x9b', '\r', '\n', '\t', '\x7f', '\u202e', '\u2066', '\u200f', '\u2028', '\\'), fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code)));
const anyText = fc.string({ unit: character });

describe('terminalText', () => {
  it('writes a title that clears the screen and retitles the window as visible escapes', () => {
    expect(terminalText('\x1b[2J\x1b]0;pwned\x07')).toBe('\\u001b[2J\\u001b]0;pwned\\u0007');
    expect(terminalText('a\nb\r\tc')).toBe('a\\nb\\r\\tc');
    expect(terminalText('a\nb\r', { lines: true })).toBe('a\nb\\r');
    expect(terminalText('id \u202e4321 \x9b2J\x7f')).toBe('id \\u202e4321 \\u009b2J\\u007f');
    expect(terminalText('café — 価格 📈 C:\\data')).toBe('café — 価格 📈 C:\\data');
  });

  it('leaves no control, C1 or bidirectional formatting character; newlines only where lines are kept', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(terminalText(text)).not.toMatch(UNSAFE);
        expect(terminalText(text)).not.toContain('\n');
        expect(terminalText(text, { lines: true })).not.toMatch(UNSAFE);
        expect(terminalText(text, { lines: true }).split('\n')).toHaveLength(text.split('\n').length);
      }),
    );
  });

  it('changes nothing in text without such characters', () => {
    const safe = fc.string({ unit: character.filter((one) => !UNSAFE.test(one) && one !== '\n') });
    fc.assert(
      fc.property(safe, (text) => {
        expect(terminalText(text)).toBe(text);
        expect(terminalText(text, { lines: true })).toBe(text);
      }),
    );
  });

  // Compared with the value the JSON text holds: JSON writes -0 as 0.
  it('keeps the value of a JSON text (the escapes are JSON string escapes)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: character }), (value) => {
        for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2)]) expect(JSON.parse(terminalText(text, { lines: true }))).toEqual(JSON.parse(text));
      }),
    );
  });
});

/** Runs `eql` in-process on in-memory files. */
async function run(argv: string[], files: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: () => Promise.resolve(''),
    readFile: (path) => (files[path] === undefined ? Promise.reject(Object.assign(new Error(`no file ${path}`), { code: 'ENOENT' })) : Promise.resolve(files[path])),
    color: false,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe('the commands print what came from a file escaped', () => {
  // eslint-disable-next-line no-control-regex -- control characters are what the test looks for
  const UNSAFE_OUTPUT = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
  // ESC c resets the terminal; no glob character, so that the name is read as it is.
  const name = 'q\x1bc\x07\u202e.json';
  const request = {
    title: 't',
    query: { conditions: { AND: [{ source: 'pr\u009bice\u202e', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'n', type: 'notify', params: { message: 'm' } }], expiresIn: '1h' },
  };

  it('validate: the file name and the findings quoting the file; --json stays exact', async () => {
    const human = await run(['validate', name], { [name]: JSON.stringify(request) });
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('q\\u001bc\\u0007\\u202e.json is invalid');
    expect(human.stdout).toContain('pr\\u009bice\\u202e');
    expect(human.stdout + human.stderr).not.toMatch(UNSAFE_OUTPUT);
    const json = await run(['validate', name, '--json'], { [name]: JSON.stringify(request) });
    const result = JSON.parse(json.stdout) as { diagnostics: Array<{ message: string }> };
    expect(result.diagnostics.some((diagnostic) => diagnostic.message.includes('pr\u009bice\u202e'))).toBe(true);
  });

  it('a syntax error of the text form, and a file that cannot be read', async () => {
    const text = await run(['validate', 'q.eql'], { 'q.eql': 'title "x"\nwhen price of BTC > 1\nthen notify "m" as tell\nexpires in 1h\n\x1b[2J\x9b\n' });
    expect(text.code).toBe(1);
    expect(text.stdout + text.stderr).not.toMatch(UNSAFE_OUTPUT);
    const missing = await run(['validate', '\x1b[2Jgone.json'], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('\\u001b[2Jgone.json');
    expect(missing.stderr).not.toMatch(UNSAFE_OUTPUT);
  });
});
