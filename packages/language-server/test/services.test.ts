import { readFileSync } from 'node:fs';
import { eqlSchema } from '@eql/core';
import { KEYWORDS } from '@eql/syntax';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, MarkupContent, TextEdit } from 'vscode-languageserver-types';
import { describe, expect, it } from 'vitest';
import { codeDescriptionOf, COMMANDS, convertedUri, createEqlServices, DEFAULT_SETTINGS, DefaultSchemaModel, DIAGNOSTICS_DOCS_URL, formOf, readSettings, type ValidatedDocument } from '../src/index.js';
import { KEYWORD_DOCS } from '../src/schema/docs.js';
import { BAD_JSON, BAD_TEXT, VALID_TEXT } from './support/documents.js';
import { rangeOf } from './support/lsp-client.js';
import { ManualTimers, openDocument } from './support/services.js';

const apply = (text: string, edits: TextEdit[] | undefined) => TextDocument.applyEdits(TextDocument.create('file:///x', 'eql', 0, text), edits ?? []);
const everywhere = { start: { line: 0, character: 0 }, end: { line: 999, character: 0 } };
const quickFix = (document: ValidatedDocument, title: string, uri: string): TextEdit[] | undefined => {
  const services = createEqlServices();
  const action: CodeAction | undefined = services.codeActions.codeActions(document, { range: everywhere, context: { diagnostics: [] } }).find((candidate) => candidate.title === title);
  return action?.edit?.changes?.[uri];
};

describe('the schema model', () => {
  const model = new DefaultSchemaModel();
  const defs = eqlSchema.$defs;

  it('reads sources, methods, action types and operators from $defs', () => {
    expect(model.sources().map((source) => source.name)).toEqual(defs.condition.properties.source.enum);
    expect(model.methods('ta').map((method) => method.name)).toEqual(defs.taCondition.properties.method.enum);
    expect(model.methods('llm').map((method) => method.name)).toEqual(['athena_condition']);
    expect(model.methods('tweet')).toEqual([]);
    expect(model.actionTypes().map((type) => type.name)).toEqual(defs.action.properties.type.enum);
    expect(model.operators().map((operator) => operator.name)).toEqual(defs.operator.enum);
  });

  it('reads the arguments of each method and the params of each action type', () => {
    expect(model.args('ta', 'stoch_k').map((arg) => [arg.name, arg.required])).toEqual([
      ['symbol', true],
      ['timeframe', false],
      ['period', false],
      ['signalPeriod', false],
      ['exchange', false],
    ]);
    expect(model.args('llm').find((arg) => arg.name === 'minConfidence')).toMatchObject({ type: 'number 0 to 100', default: 80, required: false });
    expect(model.args('ta', 'rsi').find((arg) => arg.name === 'timeframe')).toMatchObject({ default: '1h', values: defs.timeframe.enum });
    expect(model.params('limit_order').filter((param) => param.required).map((param) => param.name)).toEqual(['exchange', 'symbol', 'side', 'price']);
    expect(model.params('notify', { callback: true }).every((param) => !param.required)).toBe(true);
  });

  it('follows discriminators and if/then/else to the schema at a pointer', () => {
    const request = { query: { conditions: { OR: [{ AND: [{ source: 'price', method: 'change', args: {} }] }] } } };
    expect(model.propertyAt(request, '/query/conditions/OR/0/AND/0/args/period')?.description).toBe('Window the statistic is computed over, such as 24h.');
    expect(model.propertyAt(request, '/query/conditions/OR/0/AND/0/args/timeframe')).toBeUndefined();
  });
});

describe('adding a missing required property', () => {
  it('adds it with a placeholder, in JSON and in the text form', () => {
    const json = JSON.stringify({ query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 1 }] }, actions: [{ stepId: 'n', type: 'notify', params: {} }] } }, null, 2);
    const opened = openDocument(json, { json: true });
    const fixed = JSON.parse(apply(json, quickFix(opened.validated(), 'Add "message" ("TODO: message")', opened.uri))) as { query: { actions: Array<{ params: unknown }> } };
    expect(fixed.query.actions[0]?.params).toEqual({ message: 'TODO: message' });

    const text = 'when price of BTC > 1\nthen\n  webhook as hook\n';
    const { validated, uri } = openDocument(text);
    expect(apply(text, quickFix(validated(), 'Add "url" ("https://example.com/hook")', uri))).toBe('when price of BTC > 1\nthen\n  webhook "https://example.com/hook" as hook\n');
  });
});

describe("EQL's own words", () => {
  const model = new DefaultSchemaModel();
  /** Type names of JSON Schema or TypeScript, and TypeScript's union and object syntax. */
  const FOREIGN = /\b(string|integer|boolean|object|array|undefined|Record|Array)\b| \| |\{|\}/;

  it('names every argument and parameter in the words of the language (text, whole number, one of …), never a type name', () => {
    const labels = [
      ...model.sources().flatMap((source) => {
        const methods = model.methods(source.name);
        return methods.length === 0 ? model.args(source.name) : methods.flatMap((method) => model.args(source.name, method.name));
      }),
      ...model.actionTypes().flatMap((type) => [...model.params(type.name), ...model.params(type.name, { callback: true })]),
    ].map((property) => `${property.name}: ${property.type}`);
    expect(labels.length).toBeGreaterThan(60);
    expect(labels.filter((label) => FOREIGN.test(label))).toEqual([]);
  });

  it('says on hover over a placeholder what it gives, or that the query has no such placeholder', () => {
    const text = 'when all of\n  price of BTC > 1\n  price of ETH < 2\nthen notify "{{AND.1.value}} at {{ firedAt }} {{vaule}}" as n\n';
    const { services, validated } = openDocument(text);
    const at = (word: string) => (services.hover.hover(validated(), rangeOf(text, word).start)?.contents as MarkupContent | undefined)?.value;
    expect(at('AND.1.value')).toBe('**{{AND.1.value}}** (placeholder): the value read when it fired (a price, an indicator) of the condition at /AND/1');
    expect(at('firedAt')).toBe("**{{firedAt}}** (placeholder): the trigger's instant, ISO 8601 UTC");
    expect(at('vaule')).toBe('**{{vaule}}**: not a placeholder of this query');
  });

  it('says on hover over an unknown key that it is unknown, and which keys are allowed', () => {
    const text = 'when llm "Is it bullish?" every 1h (perod 2h)\nthen notify "x" as n\n';
    const { services, validated } = openDocument(text);
    const hover = services.hover.hover(validated(), rangeOf(text, 'perod').start);
    expect((hover?.contents as MarkupContent).value).toBe('**perod**: unknown property "perod"; did you mean "period"?\n\nAllowed here: query, period, speed, minConfidence');
  });
});

describe('documentation', () => {
  it('has docs for every keyword of the text form', () => {
    expect([...KEYWORDS].filter((keyword) => KEYWORD_DOCS[keyword] === undefined)).toEqual([]);
  });

  it('describes a value and its field on hover in JSON', () => {
    const { services, validated } = openDocument(BAD_JSON, { json: true });
    const hover = services.hover.hover(validated(), rangeOf(BAD_JSON, 'athena_condition').start);
    const text = (hover?.contents as MarkupContent).value;
    expect(text).toContain('**llm.athena_condition**: The LLM condition judge');
    expect(text).toContain('**method** · `always athena_condition` · optional · default "athena_condition"');
    const onQuery = services.hover.hover(validated(), rangeOf(BAD_JSON, '"query"').start);
    expect((onQuery?.contents as MarkupContent).value).toContain('**Estimated cost: 245 credits ($2.205)** — the query has errors\n\nLLM calls, upper bounds: conditions 48 (fast 48); actions 0');
  });
});

describe('settings', () => {
  it('reads the section, a wrapped section and partial updates', () => {
    expect(readSettings(undefined)).toEqual(DEFAULT_SETTINGS);
    expect(readSettings({ eql: { symbols: ['X'], validation: { debounceMs: 5, mode: 'payment' } } })).toEqual({
      symbols: ['X'],
      validation: { debounceMs: 5, mode: 'payment' },
      diagnostics: { docsUrl: DIAGNOSTICS_DOCS_URL },
    });
    expect(readSettings({ debounceMs: 7 }).validation.debounceMs).toBe(7);
    expect(readSettings({ symbols: 'BTC', validation: { debounceMs: -1, mode: 'x' } })).toEqual(DEFAULT_SETTINGS);
  });

  it('reads diagnostics.docsUrl: an absolute URL or empty, anything else keeps the current one', () => {
    expect(DEFAULT_SETTINGS.diagnostics.docsUrl).toBe('https://github.com/eql-dev/eql/blob/main/docs/diagnostics.md');
    const mirror = readSettings({ diagnostics: { docsUrl: 'https://docs.example.com/eql/diagnostics.html' } });
    expect(mirror.diagnostics.docsUrl).toBe('https://docs.example.com/eql/diagnostics.html');
    expect(readSettings({ diagnostics: { docsUrl: 'not a url' } }, mirror).diagnostics.docsUrl).toBe('https://docs.example.com/eql/diagnostics.html');
    expect(readSettings({ diagnostics: { docsUrl: 3 } }, mirror).diagnostics.docsUrl).toBe('https://docs.example.com/eql/diagnostics.html');
    expect(readSettings({ diagnostics: { docsUrl: '' } }, mirror).diagnostics.docsUrl).toBe('');
    expect(codeDescriptionOf('username-at', DIAGNOSTICS_DOCS_URL)).toEqual({ href: `${DIAGNOSTICS_DOCS_URL}#username-at` });
    expect(codeDescriptionOf('username-at', 'file:///d/diagnostics.md#old')).toEqual({ href: 'file:///d/diagnostics.md#username-at' });
    expect(codeDescriptionOf('no-such-code', DIAGNOSTICS_DOCS_URL)).toBeUndefined();
    expect(codeDescriptionOf('syntax', '')).toBeUndefined();
  });

  it('validates in payment mode when asked', () => {
    const text = 'when price of BTC > 1 then market buy $5 of BTC on paper as entry';
    const services = createEqlServices({ settings: { validation: { mode: 'payment' } } });
    const { validated } = openDocument(text, { services });
    expect(services.diagnostics.diagnostics(validated()).map((diagnostic) => diagnostic.code)).toEqual(['trade-in-payment-mode']);
  });

  it('validates against what the host serves when told (validation.served)', () => {
    const text = 'when price of DOGE > 1 then notify "up" as n';
    const services = createEqlServices({ settings: { validation: { served: { symbols: ['BTC', 'ETH'], history: true } } } });
    const { validated } = openDocument(text, { services });
    const [diagnostic] = services.diagnostics.diagnostics(validated());
    expect(diagnostic).toMatchObject({ code: 'unserved-symbol', message: expect.stringContaining('served: BTC, ETH') as string });
    expect(readSettings({ validation: { served: null } }, services.settings.current).validation.served).toBeUndefined();
    const plain = createEqlServices();
    expect(plain.diagnostics.diagnostics(openDocument(text, { services: plain }).validated())).toEqual([]);
  });

  it('matches the settings and commands the extension contributes', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../vscode/package.json', import.meta.url), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { default: unknown }> }; commands: Array<{ command: string }> };
    };
    const properties = manifest.contributes.configuration.properties;
    expect(properties['eql.symbols']?.default).toEqual(DEFAULT_SETTINGS.symbols);
    expect(properties['eql.validation.debounceMs']?.default).toBe(DEFAULT_SETTINGS.validation.debounceMs);
    expect(properties['eql.validation.mode']?.default).toBe(DEFAULT_SETTINGS.validation.mode);
    expect(properties['eql.diagnostics.docsUrl']?.default).toBe(DEFAULT_SETTINGS.diagnostics.docsUrl);
    expect(manifest.contributes.commands.map((command) => command.command)).toEqual(Object.values(COMMANDS));
  });
});

describe('documents', () => {
  it('tells the form by language id, name or content', () => {
    expect(formOf('file:///a.eql.json', 'json', '')).toBe('json');
    expect(formOf('file:///a.json', 'eql-json', '')).toBe('json');
    expect(formOf('file:///a.eql', 'eql', '{')).toBe('text');
    expect(formOf('untitled:1', 'plaintext', '  {"query": 1}')).toBe('json');
    expect(formOf('untitled:2', 'plaintext', 'when price of BTC > 1')).toBe('text');
    expect(convertedUri('file:///q/a.eql', 'json')).toBe('file:///q/a.eql.json');
    expect(convertedUri('file:///q/a.eql.json', 'text')).toBe('file:///q/a.eql');
  });

  it('debounces validation, answers with the latest text, and announces each version once', () => {
    const timers = new ManualTimers();
    const services = createEqlServices({ timers });
    const seen: number[] = [];
    services.documents.onValidated((document) => seen.push(document.version));
    const uri = 'file:///t/debounce.eql';
    services.documents.open(uri, 'eql', 1, VALID_TEXT);
    expect(seen).toEqual([1]);
    services.documents.change(uri, 2, [{ text: BAD_TEXT }]);
    services.documents.change(uri, 3, [{ text: VALID_TEXT }]);
    expect(services.documents.stateOf(uri)).toBe('changed');
    expect([...timers.pending.values()].map((timer) => timer.ms)).toEqual([150]);
    expect(services.documents.get(uri, 'parsed')?.version).toBe(3);
    expect(services.documents.stateOf(uri)).toBe('parsed');
    expect(services.documents.get(uri, 'validated')?.validation?.valid).toBe(true);
    timers.runAll();
    expect(seen).toEqual([1, 3]);
    timers.runAll();
    expect(seen).toEqual([1, 3]);
  });

  it('parses valid JSON once and builds its source map only when asked', () => {
    const { parsed } = openDocument('{"query": {}}', { json: true });
    const outcome = parsed().parse;
    expect(outcome.errors).toEqual([]);
    expect(outcome.value).toEqual({ query: {} });
    expect(outcome.map.entries.get('/query')?.key?.start.offset).toBe(1);
  });
});

describe('quick fixes', () => {
  it('keep comments and layout of the text form', () => {
    const text = '# watch\nwhen all of\n  price of BTC > 1  # level\n  llm "Is it bullish?" every 10m  # judged\nthen\n  notify "x" as a\n';
    const { uri, validated } = openDocument(text);
    expect(apply(text, quickFix(validated(), 'Raise the period to 1h', uri))).toBe(text.replace('10m', '1h'));
  });

  it('use the perpetual symbol of an order, in both forms', () => {
    const text = 'when price of BTC > 1\nthen\n  market buy $100 of BTC/USDT on binance as order-1\n';
    const opened = openDocument(text);
    const diagnostic = opened.validated().validation?.diagnostics.find((candidate) => candidate.code === 'not-perpetual-symbol');
    expect(diagnostic?.fix?.title).toBeDefined();
    const fixed = apply(text, quickFix(opened.validated(), diagnostic?.fix?.title ?? '', opened.uri));
    expect(fixed).toBe(text.replace('BTC/USDT', 'BTC/USDT:USDT'));
  });

  it('remove a property in JSON (method on a tweet condition)', () => {
    const request = { query: { conditions: { AND: [{ source: 'tweet', method: 'search', args: { username: 'elonmusk', text: 'doge' } }] }, actions: [{ stepId: 'a', type: 'notify', params: { message: 'x' } }] } };
    const text = JSON.stringify(request, null, 2);
    const { uri, validated } = openDocument(text, { json: true });
    const fixed = apply(text, quickFix(validated(), 'Remove "method"', uri));
    expect(JSON.parse(fixed)).toEqual({ query: { ...request.query, conditions: { AND: [{ source: 'tweet', args: { username: 'elonmusk', text: 'doge' } }] } } });
    expect(fixed).toContain('          "source": "tweet",\n          "args": {');
  });

  it('are offered only for diagnostics in the requested range', () => {
    const { services, validated } = openDocument(BAD_TEXT);
    const actions = services.codeActions.codeActions(validated(), { range: rangeOf(BAD_TEXT, '30m'), context: { diagnostics: [], only: ['quickfix'] } });
    expect(actions.map((action) => action.title)).toEqual(['Raise the period to 1h']);
  });
});

describe('conversion', () => {
  it('refuses a document with syntax errors and says why', () => {
    const { services, parsed } = openDocument('when price of > 5 then notify "x" as a');
    expect(services.conversion.convert(parsed())).toEqual({ ok: false, to: 'json', problems: ["1:15 expected a name after 'of', found '>'"] });
  });

  it('goes from JSON to the text form and back to the same request', () => {
    const { services, parsed } = openDocument(BAD_JSON, { json: true });
    const text = services.conversion.convert(parsed());
    expect(text.ok).toBe(true);
    const back = openDocument(text.ok ? text.text : '');
    const json = back.services.conversion.convert(back.parsed());
    expect(json.ok && JSON.parse(json.text)).toEqual(JSON.parse(BAD_JSON));
  });
});

describe('formatting and symbols', () => {
  it('leaves a formatted document alone', () => {
    const { services, parsed } = openDocument(VALID_TEXT);
    expect(services.formatting.format(parsed(), { tabSize: 2, insertSpaces: true })).toEqual([]);
  });

  it('gives JSON symbols their key and value', () => {
    const { services, parsed } = openDocument(BAD_JSON, { json: true });
    const [conditions, actions] = services.symbols.symbols(parsed());
    expect(conditions?.selectionRange).toEqual(rangeOf(BAD_JSON, '"conditions"'));
    expect(conditions?.children?.map((child) => child.name)).toEqual(['tweet by @elonmusk about "dogecoin"', 'llm "Is crypto market sentiment bullish?" every 30m']);
    expect(actions?.children?.[0]?.name).toBe('alert');
  });
});
