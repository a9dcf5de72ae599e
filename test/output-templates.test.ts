import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRecording, preview, type QueryRequest, validate } from '@eql/core';
import { parseText, printText } from '@eql/syntax';

// Issue 48, "Done when": a trader writes a notify message with placeholders and a Discord webhook body in
// the text form and in JSON, and sees the rendered texts in preview.

const market = parseRecording(readFileSync(new URL('../fixtures/recordings/market-3d.jsonl', import.meta.url), 'utf8'));
const NOW = Date.parse('2026-01-05T00:00:00Z');

const TEXT = `title "SOL oversold"
when rsi of SOL (timeframe 1h, period 14) < 30 as oversold
then
  notify "{{symbol}} RSI {{value}} < 30 at {{firedAt}}, price {{price.SOL}}" as tell
  webhook "https://discord.com/api/webhooks/1/abc" (body "{\\"content\\": \\"{{title}}: {{oversold.symbol}} RSI {{oversold.value}}\\"}") as discord
expires in 7d
`;

describe('placeholders from the text form to the preview', () => {
  it('parses, validates, prints back and previews with the texts filled', () => {
    const parsed = parseText(TEXT);
    expect(parsed.errors).toEqual([]);
    const request = parsed.value as unknown as QueryRequest;
    expect(request.query.actions).toEqual([
      { stepId: 'tell', type: 'notify', params: { message: '{{symbol}} RSI {{value}} < 30 at {{firedAt}}, price {{price.SOL}}' } },
      { stepId: 'discord', type: 'webhook', params: { url: 'https://discord.com/api/webhooks/1/abc', body: '{"content": "{{title}}: {{oversold.symbol}} RSI {{oversold.value}}"}' } },
    ]);
    expect(request.query.conditions).toMatchObject({ AND: [{ source: 'ta', method: 'rsi', name: 'oversold' }] });
    expect(validate(request, { now: NOW }).diagnostics).toEqual([]);
    expect(parseText(printText(request as never)).value).toEqual(parsed.value);

    const result = preview(request, market);
    expect(result.trigger?.at).toBe('2026-01-07T04:00:00.000Z');
    const rsi = result.trigger!.conditionStates[0]!.value!;
    // The last SOL price of the recording at the trigger's instant.
    const at = Date.parse(result.trigger!.at);
    const sol = market.observations.filter((observation) => observation.source === 'price' && observation.symbol === 'SOL' && observation.at <= at).at(-1) as { price: number };
    const [tell, discord] = result.executions;
    expect(tell?.result).toEqual({ dryRun: true, wouldNotify: { title: 'SOL oversold', body: `SOL RSI ${rsi} < 30 at 2026-01-07T04:00:00.000Z, price ${sol.price}` } });
    expect(discord?.result).toEqual({ dryRun: true, wouldPost: 'https://discord.com/api/webhooks/1/abc', body: `{"content": "SOL oversold: SOL RSI ${rsi}"}`, contentType: 'application/json' });
  });

  it('refuses in validation what would go wrong when sent: a typo, a body that is no JSON', () => {
    const withBody = (body: string, contentType?: string) =>
      validate(
        { query: { conditions: { AND: [{ source: 'price', method: 'current', args: { symbol: 'BTC' }, operator: '<', value: 1 }] }, actions: [{ stepId: 'h', type: 'webhook', params: { url: 'https://hooks.slack.com/services/x', body, ...(contentType ? { contentType } : {}) } }], expiresIn: '1d' } },
        { now: NOW },
      ).diagnostics.map((diagnostic) => diagnostic.code);
    expect(withBody('{"text": "{{symbol}} at {{value}}"}')).toEqual([]);
    expect(withBody('{"text": "{{symbl}}"}')).toEqual(['unknown-placeholder']);
    expect(withBody('{"text": "{{symbol}}"')).toEqual(['invalid-webhook-body']);
    expect(withBody('not json')).toEqual(['invalid-webhook-body']);
    expect(withBody('{{symbol}} at {{value}}', 'text/plain')).toEqual([]);
    expect(withBody('{"price": {{value}}}')).toEqual([]);
  });
});
