import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Engine, EpochVirtualScheduler, MemoryStateStore, PushSource, type QueryRequest, validate } from '@eql/core';
import { conditionFacts, placeholdersOf, readTemplate, renderTemplate, templateView } from '../src/language/message-template.js';

// Placeholders in outputs (issue 48): `{{symbol}} RSI {{value}} < 30 at {{firedAt}}` renders the trigger's
// values; a template is text with holes (no sections, partials, delimiters), rendered from data only; an
// unknown placeholder is a validation error with a did-you-mean.

const T0 = Date.parse('2026-01-05T00:00:00Z');

const RSI_BELOW = {
  AND: [
    { source: 'ta', method: 'rsi', args: { symbol: 'ETH', timeframe: '1h', period: 14 }, operator: '<', value: 30 },
    { source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '>', value: 100 },
  ],
};

function request(conditions: unknown, params: Record<string, unknown>, type = 'notify'): QueryRequest {
  return { title: 'dip', query: { conditions, actions: [{ stepId: 'tell', type, params }], expiresIn: '1d' } } as QueryRequest;
}

describe('rendering a template', () => {
  it('fills the trigger, the first condition and each condition by its path', () => {
    const facts = conditionFacts(RSI_BELOW);
    const view = templateView(
      {
        title: 'dip',
        queryId: 'q1',
        stepId: 'tell',
        triggerIndex: 2,
        firedAt: T0,
        conditionStates: [
          { path: '/AND/0', value: 28.5, threshold: 30, source: 'ta', method: 'rsi' },
          { path: '/AND/1', value: 101.25, threshold: 100, source: 'price', method: 'current' },
        ],
      },
      facts,
    );
    expect(renderTemplate('{{symbol}} RSI {{value}} {{operator}} {{threshold}} at {{firedAt}} ({{title}}, #{{triggerIndex}} of {{queryId}}/{{stepId}})', view)).toBe(
      'ETH RSI 28.5 < 30 at 2026-01-05T00:00:00.000Z (dip, #2 of q1/tell)',
    );
    expect(renderTemplate('{{AND.1.symbol}} {{AND.1.operator}} {{AND.1.threshold}}: {{AND.1.value}} ({{AND.1.source}}.{{AND.1.method}})', view)).toBe('BTC > 100: 101.25 (price.current)');
    expect(placeholdersOf(RSI_BELOW)).toEqual(expect.arrayContaining(['firedAt', 'symbol', 'AND.0.value', 'AND.1.symbol']));
  });

  it('writes every value as the inside of a JSON string in a JSON template, whatever it holds', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (title) => {
        const view = templateView({ title, queryId: 'q', stepId: 's', triggerIndex: 1, firedAt: T0, conditionStates: [] }, new Map());
        const body = renderTemplate('{"content": "{{title}}", "raw": "{{{title}}}"}', view, 'json');
        expect(JSON.parse(body)).toEqual({ content: title, raw: title });
      }),
    );
  });

  it('never runs anything: values are data, names reach no prototype, sections and partials are refused', () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty', 'title.constructor'), (text, name) => {
        const view = templateView({ title: text, queryId: 'q', stepId: 's', triggerIndex: 1, firedAt: T0, conditionStates: [] }, new Map());
        // A title that looks like a template is printed as it is, not rendered again.
        expect(renderTemplate('{{title}}', view)).toBe(text);
        expect(renderTemplate(`[{{${name}}}]`, view)).toBe('[]');
      }),
    );
    expect(readTemplate('{{#title}}x{{/title}}').problem).toMatch(/section/);
    expect(readTemplate('{{>other}}').problem).toMatch(/partial/);
    expect(readTemplate('{{=<% %>=}}').problem).toMatch(/delimiters/);
    expect(readTemplate('{{value').problem).toMatch(/Unclosed tag/);
    expect(readTemplate('{{value} at {{firedAt}}').problem).toMatch(/no placeholder/);
    // A text that is no template goes out as written.
    expect(renderTemplate('{{#title}}x{{/title}}', templateView({ title: 't', queryId: 'q', stepId: 's', triggerIndex: 1, firedAt: T0, conditionStates: [] }, new Map()))).toBe('{{#title}}x{{/title}}');
  });
});

/** An engine on virtual time from T0, with a push source and a store in memory. */
function engineOnVirtualTime() {
  const scheduler = new EpochVirtualScheduler(T0, Number.MAX_SAFE_INTEGER);
  const source = new PushSource();
  const store = new MemoryStateStore();
  return { scheduler, source, store, engine: new Engine({ scheduler, sources: [source], store, newId: () => 'id' }) };
}

describe('placeholders in notify and bot texts', () => {
  it('a notification says the values that fired it', () => {
    const { scheduler, source, store, engine } = engineOnVirtualTime();
    const conditions = { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '<', value: 50_000 }] };
    engine.add({ queryId: 'q', request: request(conditions, { message: '{{symbol}} {{value}} {{operator}} {{threshold}} at {{firedAt}}', title: '{{title}}: {{symbol}}' }), createdAt: T0 });
    source.push({ at: T0 + 1_000, source: 'price', symbol: 'BTC', price: 51_000 });
    scheduler.advanceBy(60_000);
    source.push({ at: T0 + 60_000, source: 'price', symbol: 'BTC', price: 49_500.5 });
    expect(store.notifications.map((notification) => [notification.title, notification.body])).toEqual([['dip: BTC', 'BTC 49500.5 < 50000 at 2026-01-05T00:01:00.000Z']]);
    engine.dispose();
  });

  it('a named condition is read by its name; a name given twice or a placeholder already is refused', () => {
    const named = { AND: [{ ...RSI_BELOW.AND[0], name: 'oversold' }, { ...RSI_BELOW.AND[1], name: 'btc' }] };
    const view = templateView(
      { queryId: 'q', stepId: 's', triggerIndex: 1, firedAt: T0, conditionStates: [{ path: '/AND/0', value: 27 }, { path: '/AND/1', value: 101 }] },
      conditionFacts(named),
    );
    expect(renderTemplate('{{oversold.symbol}} {{oversold.value}} / {{btc.symbol}} {{btc.value}} / {{AND.1.value}}', view)).toBe('ETH 27 / BTC 101 / 101');
    expect(placeholdersOf(named)).toEqual(expect.arrayContaining(['oversold.value', 'btc.threshold', 'AND.0.value']));
    const codes = (conditions: unknown) => validate(request(conditions, { message: 'x' }), { now: T0 }).diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.path]);
    expect(codes(named)).toEqual([]);
    expect(codes({ AND: [{ ...RSI_BELOW.AND[0], name: 'dip' }, { ...RSI_BELOW.AND[1], name: 'dip' }] })).toEqual([['condition-name', '/query/conditions/AND/1/name']]);
    expect(codes({ AND: [{ ...RSI_BELOW.AND[0], name: 'value' }] })).toEqual([['condition-name', '/query/conditions/AND/0/name']]);
    expect(codes({ AND: [{ ...RSI_BELOW.AND[0], name: 'Bad Name' }] })[0]?.[0]).toBe('invalid-format');
  });

  it('gives the last price of each symbol read, at the trigger, and the same after a restart finished its actions', () => {
    const { scheduler, source, store, engine } = engineOnVirtualTime();
    const conditions = { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '<', value: 50_000 }] };
    const actions = [
      { stepId: 'a', type: 'notify', params: { message: 'BTC {{price.BTC}}' } },
      { stepId: 'b', type: 'notify', params: { message: 'still {{price.BTC}}' } },
    ];
    expect(placeholdersOf(conditions)).toContain('price.BTC');
    engine.add({ queryId: 'q', request: { title: 't', query: { conditions, actions, expiresIn: '1d' } } as QueryRequest, createdAt: T0 });
    source.push({ at: T0, source: 'price', symbol: 'BTC', price: 49_000 });
    expect(store.notifications.map((notification) => notification.body)).toEqual(['BTC 49000', 'still 49000']);
    engine.dispose();
    // A restart between the two steps: the second says the price of the trigger, not a later one.
    const resumed = new MemoryStateStore();
    const later = new Engine({ scheduler, sources: [source], store: resumed, newId: () => 'id2' });
    later.add(
      { queryId: 'q', request: { title: 't', query: { conditions, actions, expiresIn: '1d' } } as QueryRequest, createdAt: T0 },
      { status: 'active', triggerCount: 1, lastTriggerAt: T0, pendingTrigger: { triggerIndex: 1, final: true, firedAt: T0, conditionStates: [], completedSteps: ['a'], prices: { BTC: 49_000 } }, latched: {}, verdicts: {}, cronPulses: {} },
    );
    expect(resumed.notifications.map((notification) => notification.body)).toEqual(['still 49000']);
    later.dispose();
  });

  it('validation: an unknown placeholder is an error with a did-you-mean and its fix, a broken one is invalid, a known one passes', () => {
    const codes = (params: Record<string, unknown>, type = 'notify') => validate(request(RSI_BELOW, params, type), { now: T0 }).diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.message, diagnostic.fix?.edits]);
    expect(codes({ message: '{{symbol}} RSI {{value}} at {{firedAt}}; BTC {{AND.1.value}}' })).toEqual([]);
    const [typo] = codes({ message: '{{symbol}} fell to {{vaule}}' });
    expect(typo).toEqual(['unknown-placeholder', '{{vaule}} is not a placeholder of this query; did you mean {{value}}?', [{ op: 'replace', path: '/query/actions/0/params/message', value: '{{symbol}} fell to {{value}}' }]]);
    expect(codes({ message: 'at {{AND.2.value}}' })[0]?.[0]).toBe('unknown-placeholder');
    expect(codes({ message: 'x', title: '{{#title}}x{{/title}}' })[0]?.[0]).toBe('invalid-template');
    expect(codes({ botToken: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw', chatId: '@alerts', message: '{{symbl}}' }, 'messenger_bot')[0]?.[0]).toBe('unknown-placeholder');
  });
});
