import { describe, expect, it } from 'vitest';
import { main, type CliIo } from '../src/index.js';

/** Runs `eql` in-process against in-memory files (which --write updates) and standard input. */
async function run(argv: string[], files: Record<string, string> = {}, stdin = '') {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readStdin: () => Promise.resolve(stdin),
    readFile: (path) => {
      const content = files[path];
      if (content === undefined) return Promise.reject(Object.assign(new Error('missing'), { code: 'ENOENT' }));
      return Promise.resolve(content);
    },
    writeFile: (path, text) => {
      files[path] = text;
      return Promise.resolve();
    },
    color: false,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr, files };
}

const query = `title "BTC breakout"
when all of
  price of BTC > 100000
  llm "Is crypto market sentiment bullish?" every 1h
then
  notify "BTC broke 100k with bullish sentiment" as alert
expires in 24h
`;

const json = {
  title: 'BTC breakout',
  query: {
    conditions: {
      AND: [
        { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100000 },
        { source: 'llm', args: { query: 'Is crypto market sentiment bullish?', period: '1h' } },
      ],
    },
    actions: [{ stepId: 'alert', type: 'notify', params: { message: 'BTC broke 100k with bullish sentiment' } }],
    expiresIn: '24h',
  },
};

describe('eql validate, estimate and preview read the text form', () => {
  it('validates a text file like its JSON', async () => {
    const text = await run(['validate', 'q.eql', '--json'], { 'q.eql': query });
    const fromJson = await run(['validate', 'q.json', '--json'], { 'q.json': JSON.stringify(json) });
    expect(text.code).toBe(0);
    expect(JSON.parse(text.stdout)).toEqual(JSON.parse(fromJson.stdout));
  });

  it('places each finding of a text file on its token, line and column', async () => {
    const bad = query.replace('every 1h', 'every 30m').replace('price of BTC > 100000', 'rsi of BTC > 120');
    const { code, stdout } = await run(['validate', 'q.eql'], { 'q.eql': bad });
    expect(code).toBe(1);
    expect(stdout).toContain('q.eql is invalid: 2 errors');
    expect(stdout).toContain('  error   3:16 query.conditions.AND[0].value: ');
    expect(stdout).toContain('  error   4:51 query.conditions.AND[1].args.period: an llm condition period must be at least 1h (got 30m) [llm-period-too-short]');
    const asJson = await run(['validate', 'q.eql', '--json'], { 'q.eql': bad });
    const result = JSON.parse(asJson.stdout) as { diagnostics: Array<{ code: string; range: { start: { line: number; column: number }; end: { column: number } } }> };
    expect(result.diagnostics.find((d) => d.code === 'llm-period-too-short')?.range).toMatchObject({ start: { line: 4, column: 51 }, end: { column: 54 } });
  });

  it('places findings of a JSON file too', async () => {
    const bad = JSON.stringify({ ...json, query: { ...json.query, expiresIn: '90d' } }, null, 2);
    const { code, stdout } = await run(['validate', 'q.json'], { 'q.json': bad });
    expect(code).toBe(1);
    const line = bad.split('\n').findIndex((row) => row.includes('"90d"')) + 1;
    expect(stdout).toContain(`  error   ${line}:18 query.expiresIn: `);
  });

  it('prints syntax errors with line and column and exits 1', async () => {
    const { code, stdout } = await run(['validate', 'q.eql'], { 'q.eql': 'when all of\n  price of > 5\n  rsj of BTC > 1\nthen\n  notify "x" as x\n' });
    expect(code).toBe(1);
    expect(stdout).toBe(
      "✗ q.eql is invalid: 2 syntax errors\n  error   2:12 expected a name after 'of', found '>' [syntax]\n  error   3:3 unknown measure 'rsj' (did you mean 'rsi'?); expected price, change, high, low, volume or one of 39 indicators such as rsi, ema, macd_value, bbands_upper, vwap or supertrend (completion lists them all) [syntax]\n",
    );
    const asJson = await run(['validate', 'q.eql', '--json'], { 'q.eql': 'when price of > 5 then notify "x" as x' });
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      valid: false,
      errors: ["1:15: expected a name after 'of', found '>'"],
      diagnostics: [{ code: 'syntax', severity: 'error', path: '', range: { start: { line: 1, column: 15 } } }],
    });
  });

  it('estimates a text file', async () => {
    const { code, stdout } = await run(['estimate', 'q.eql'], { 'q.eql': query });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^q\.eql\n {2}estimated cost: 125 credits \(\$1\.125\)\n {2}LLM calls, upper bounds: conditions 24 \(fast 24\); actions 0\n {2}breakdown:\n/);
    // The text form's condition is where the JSON form's would be.
    expect(stdout).toMatch(/\/query\/conditions\/AND\/1 +"Is crypto market sentiment bullish\?" every 1h \(fast\) +24 calls +120 credits\n$/);
    expect((await run(['estimate', 'q.eql'], { 'q.eql': 'when' })).code).toBe(1);
  });

  it('previews a text file (and refuses one with syntax errors)', async () => {
    const broken = await run(['preview', 'q.eql', '--data', 'r.jsonl'], { 'q.eql': 'when price of BTC >', 'r.jsonl': '' });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('1 syntax error');
    const recording = '{"at":"2026-01-01T00:00:00Z","source":"price","symbol":"BTC","price":99000}\n{"at":"2026-01-01T00:01:00Z","source":"price","symbol":"BTC","price":101000}\n';
    const { code, stdout } = await run(['preview', 'q.eql', '--data', 'r.jsonl', '--json'], {
      'q.eql': 'when price of BTC crosses above 100000 then notify "up" as up',
      'r.jsonl': recording,
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ triggered: true, trigger: { at: '2026-01-01T00:01:00.000Z' } });
  });

  it('still exits 2 for unusable input', async () => {
    expect((await run(['validate', 'missing.eql'])).code).toBe(2);
    const empty = await run(['validate', 'e.eql'], { 'e.eql': '\n  \n' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('e.eql is empty');
  });
});

describe('eql fmt', () => {
  const messy = 'title "BTC breakout"   # the name\nwhen all of [price of BTC>100000,\n llm "Is crypto market sentiment bullish?" every 1h] then notify "BTC broke 100k with bullish sentiment" as alert expires in 24h';
  const tidy = 'title "BTC breakout"  # the name\nwhen all of\n  price of BTC > 100000\n  llm "Is crypto market sentiment bullish?" every 1h\nthen\n  notify "BTC broke 100k with bullish sentiment" as alert\nexpires in 24h\n';

  it('prints the canonical layout, comments kept', async () => {
    const { code, stdout } = await run(['fmt', 'q.eql'], { 'q.eql': messy });
    expect(code).toBe(0);
    expect(stdout).toBe(tidy);
  });

  it('--check exits 1 when the file is not formatted, 0 when it is', async () => {
    const unformatted = await run(['fmt', 'q.eql', '--check'], { 'q.eql': messy });
    expect(unformatted.code).toBe(1);
    expect(unformatted.stdout).toContain('q.eql is not formatted');
    expect((await run(['fmt', 'q.eql', '--check'], { 'q.eql': tidy })).code).toBe(0);
  });

  it('--write rewrites the file', async () => {
    const result = await run(['fmt', 'q.eql', '--write'], { 'q.eql': messy });
    expect(result.code).toBe(0);
    expect(result.files['q.eql']).toBe(tidy);
    expect(result.stdout).toBe('formatted q.eql\n');
  });

  it('reports syntax errors on stderr with line and column (exit 1)', async () => {
    const { code, stdout, stderr } = await run(['fmt', 'q.eql'], { 'q.eql': 'when price of BTC >\nthen notify "x" as x' });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe("q.eql:2:1: expected a number or a live operand such as ema of BTC after '>', found the keyword 'then'\n");
  });

  it('refuses JSON, --write on standard input and --write with --check (exit 2)', async () => {
    expect((await run(['fmt', 'q.json'], { 'q.json': JSON.stringify(json) })).stderr).toContain('q.json is JSON');
    expect((await run(['fmt', 'q.json'], { 'q.json': JSON.stringify(json) })).code).toBe(2);
    expect((await run(['fmt', '-', '--write'], {}, messy)).code).toBe(2);
    expect((await run(['fmt', 'q.eql', '--write', '--check'], { 'q.eql': messy })).code).toBe(2);
  });
});

describe('eql convert', () => {
  it('turns JSON into the text form and back', async () => {
    const toText = await run(['convert', 'q.json', '--to', 'text'], { 'q.json': JSON.stringify(json) });
    expect(toText.code).toBe(0);
    expect(toText.stdout).toBe(query);
    const toJson = await run(['convert', 'q.eql', '--to', 'json'], { 'q.eql': query });
    expect(toJson.code).toBe(0);
    expect(JSON.parse(toJson.stdout)).toEqual(json);
  });

  it('without --to, writes the other form than the input: the input tells the direction', async () => {
    const toText = await run(['convert', 'q.json'], { 'q.json': JSON.stringify(json) });
    expect(toText.code).toBe(0);
    expect(toText.stdout).toBe(query);
    const toJson = await run(['convert', 'q.eql'], { 'q.eql': query });
    expect(toJson.code).toBe(0);
    expect(JSON.parse(toJson.stdout)).toEqual(json);
    const fromStdin = await run(['convert', '-'], {}, JSON.stringify(json));
    expect(fromStdin.stdout).toBe(query);
  });

  it('normalizes within a format', async () => {
    expect((await run(['convert', 'q.json', '--to', 'json'], { 'q.json': JSON.stringify(json) })).stdout).toBe(`${JSON.stringify(json, null, 2)}\n`);
    expect((await run(['convert', '-', '--to', 'text'], {}, query.replace(/\n {2}/g, ' '))).stdout).toBe(query);
  });

  it('says where JSON has no text form, and where the text form is broken (exit 1)', async () => {
    const odd = JSON.stringify({ ...json, extra: true }, null, 2);
    const noText = await run(['convert', 'q.json', '--to', 'text'], { 'q.json': odd });
    expect(noText.code).toBe(1);
    expect(noText.stderr).toContain('q.json:');
    expect(noText.stderr).toContain('"extra" (at /extra)');
    const broken = await run(['convert', 'q.eql', '--to', 'json'], { 'q.eql': 'when price of > 1 then notify "x" as x' });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toBe("q.eql:1:15: expected a name after 'of', found '>'\n");
  });

  it('exits 2 for broken JSON, a missing file or an unknown --to', async () => {
    expect((await run(['convert', 'q.json', '--to', 'text'], { 'q.json': '{"query": ' })).code).toBe(2);
    expect((await run(['convert', 'nope.eql', '--to', 'json'])).code).toBe(2);
    expect((await run(['convert', 'q.eql', '--to', 'yaml'], { 'q.eql': query })).code).toBe(2);
  });
});

describe('eql validate with a syntax mistake', () => {
  const broken = 'when all of\n  price of BTC => 100000\n  llm athena_condition "x?" every 30m\nthen\n  notfy "up" as n\n';

  it('names every mistake at once: the syntax errors and the findings of the lines read cleanly, in document order', async () => {
    const { code, stdout } = await run(['validate', 'q.eql'], { 'q.eql': broken });
    expect(code).toBe(1);
    expect(stdout.split('\n').filter(Boolean)).toEqual([
      '✗ q.eql is invalid: 2 syntax errors, 1 other error',
      "  error   2:16 '=>' is not an operator of EQL: write '>=' [syntax]",
      '  error   3:35 query.conditions.AND[1].args.period: an llm condition period must be at least 1h (got 30m) [llm-period-too-short]',
      "  error   5:3 'notfy' is not a word of EQL: did you mean 'notify'? [syntax]",
    ]);
  });

  it('gives them as JSON too', async () => {
    const { stdout } = await run(['validate', 'q.eql', '--json'], { 'q.eql': broken });
    const result = JSON.parse(stdout) as { valid: boolean; diagnostics: Array<{ code: string }> };
    expect(result.valid).toBe(false);
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['syntax', 'syntax', 'llm-period-too-short']);
  });
});
