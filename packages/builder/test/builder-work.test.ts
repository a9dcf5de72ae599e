import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { interpret, MAX_MESSAGE_TOKENS, messageTokens, PHRASE_RULES, QueryBuilder, STEPS_PER_TOKEN } from '../src/index.js';
import { ScriptedModel } from '../src/testing.js';
import { normalizeMessage } from '../src/text/normalize.js';
import { closingQuotes, tokenize } from '../src/text/tokens.js';

/**
 * The work of reading one message is bounded (issue 45, finding 8): the grammar's work grows linearly
 * with the message, a message of more tokens than the cap never reaches the phrase rules, and a work
 * budget stops a reading that would go past it. Work is counted, never timed.
 */

const NOW = Date.UTC(2026, 0, 15, 12, 0);
const builder = new QueryBuilder({ mode: 'api-key', now: () => NOW });

/** Every attempt of a phrase rule at a token, counted by wrapping the rule table the scanner reads. */
const attempts = { count: 0 };
const originals = PHRASE_RULES.map((rule) => rule.pattern);
beforeEach(() => {
  attempts.count = 0;
  PHRASE_RULES.forEach((rule, index) => {
    const pattern = originals[index] as (typeof rule)['pattern'];
    rule.pattern = (tokens, at) => {
      attempts.count += 1;
      return pattern(tokens, at);
    };
  });
});
afterEach(() => {
  PHRASE_RULES.forEach((rule, index) => {
    rule.pattern = originals[index] as (typeof rule)['pattern'];
  });
});

const FIXTURES = new URL('../../../fixtures/builder/', import.meta.url);
const fixtureMessages = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.json'))
  .map((name) => (JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as { message: string }).message);
/** Words and signs of the phrasings the grammar reads, plus quotes, brackets and signs that make many tokens. */
const VOCABULARY = [...new Set(fixtureMessages.join(' ').split(/\s+/)), "'", '"', '(', ')', "'(", '-', ',', '.', '$', '@', ':', '/', 'and', 'or', 'news', 'saying', 'title'];

/** A message of `length` characters repeating `unit`. */
const repeated = (unit: string, length = 4_000): string => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

describe('the token cap', () => {
  it('counts the tokens of a message as the grammar reads them', () => {
    expect(messageTokens('alert me when BTC > 70k, then post to https://example.com/x')).toBe(tokenize(normalizeMessage('alert me when BTC > 70k, then post to https://example.com/x')).length);
    expect(messageTokens(repeated('-'))).toBe(4_000);
    expect(messageTokens(repeated('- '))).toBe(2_000);
  });

  it('a message of more tokens than the cap never reaches the phrase rules; the reply says it is too long, offers no query and keeps the conversation', async () => {
    const first = await builder.reply({ message: 'alert me when BTC is above 70k' });
    expect(first.query).toBeDefined();
    attempts.count = 0;
    for (const message of [repeated('-'), repeated("'("), repeated('a '), repeated('BTC>1,')]) {
      expect(messageTokens(message)).toBeGreaterThan(MAX_MESSAGE_TOKENS);
      const reply = await builder.reply({ message, state: first.state });
      expect(attempts.count).toBe(0);
      expect(reply.work).toMatchObject({ tokens: messageTokens(message), steps: 0, tooLong: true });
      expect(reply.query).toBeUndefined();
      expect(reply.markdown).toMatch(/too long/);
      expect(reply.markdown).toContain(MAX_MESSAGE_TOKENS.toLocaleString('en-US'));
      // Nothing of it is quoted back, nor kept to be read with the next message.
      expect(reply.markdown.length).toBeLessThan(1_000);
      expect(reply.state.pending).toBeUndefined();
      expect(reply.state.query).toEqual(first.query);
    }
  });

  it('with a model, a message past the cap is not sent to it', async () => {
    const model = new ScriptedModel([]);
    const reply = await new QueryBuilder({ model, mode: 'api-key', now: () => NOW }).reply({ message: repeated('-') });
    expect(model.requests).toHaveLength(0);
    expect(reply.usedModel).toBe(false);
    expect(reply.markdown).toMatch(/too long/);
  });

  it('a message at the cap is read', async () => {
    const message = `${'x '.repeat(MAX_MESSAGE_TOKENS - 3)}BTC above 70k`;
    expect(messageTokens(message)).toBe(MAX_MESSAGE_TOKENS);
    const reply = await builder.reply({ message });
    expect(attempts.count).toBeGreaterThan(0);
    expect(reply.work.tooLong).toBe(false);
    expect(reply.markdown).not.toMatch(/too long/);
  });

  it('an answer that would make the pending message too long is read alone, at the cost of reading it alone', async () => {
    const asked = await builder.reply({ message: 'x '.repeat(MAX_MESSAGE_TOKENS - 2) });
    expect(asked.state.pending).toBeDefined();
    const answer = await builder.reply({ message: 'make it $500 then', state: asked.state });
    expect(answer.work).toEqual(interpret('make it $500 then', { now: NOW }).work);
    expect(answer.markdown).not.toMatch(/too long/);
  });
});

describe('the work of a reading', () => {
  it('grows at most linearly with the message: steps stay under the budget rate for any message', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...VOCABULARY), { minLength: 1, maxLength: 1_200 }), fc.constantFrom(' ', '', ', '), (words, separator) => {
        const message = words.join(separator).slice(0, 4_000);
        const tokens = messageTokens(message);
        fc.pre(tokens <= MAX_MESSAGE_TOKENS);
        const reading = interpret(message, { now: NOW });
        expect(reading.work.tokens).toBe(tokens);
        expect(reading.work.exhausted).toBe(false);
        expect(reading.work.steps).toBeLessThanOrEqual((STEPS_PER_TOKEN / 2) * Math.max(tokens, 1));
      }),
      { numRuns: 60 },
    );
  });

  it('the messages that made many tokens cost the same steps per token as plain words', () => {
    const perToken = (message: string): number => {
      const reading = interpret(message, { now: NOW });
      return reading.work.steps / reading.work.tokens;
    };
    const words = perToken(repeated('wobble ', 2_000));
    for (const unit of ['-', "'(", '"(', '(', '1,', 'a-b ', '$a ', 'news ', 'saying ', '@a tweets about b, ']) {
      const message = repeated(unit, 600);
      expect(perToken(message), unit).toBeLessThanOrEqual(STEPS_PER_TOKEN / 2);
      expect(perToken(message), unit).toBeLessThanOrEqual(words * 4);
    }
  });

  it('past its budget a reading stops, and the reply says the message is too long or unclear', async () => {
    const tight = new QueryBuilder({ mode: 'api-key', now: () => NOW, stepsPerToken: 2 });
    const reply = await tight.reply({ message: 'alert me when BTC is above 70k and ETH is below 3k, then send it to my webhook https://example.com/x' });
    expect(reply.work.exhausted).toBe(true);
    expect(reply.work.steps).toBeLessThanOrEqual(2 * reply.work.tokens + 1);
    expect(reply.query).toBeUndefined();
    expect(reply.markdown).toMatch(/too long or too tangled/);
    expect(reply.state.pending).toBeUndefined();
  });
});

describe('the tokenizer reads a message in one pass', () => {
  it('finds the quote closing each single-quoted phrase from one table, as the search from each opening quote did', () => {
    const reference = (text: string, from: number): number => {
      const close = /'(?=$|[\s,.;:!?)])/g;
      close.lastIndex = from;
      return close.exec(text)?.index ?? -1;
    };
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("'", '(', ')', ' ', ',', 'a', '1', '.', '!', '"'), maxLength: 60 }), (text) => {
        const table = closingQuotes(text);
        for (let at = 0; at <= text.length; at += 1) expect(table[at]).toBe(reference(text, at));
      }),
    );
    expect(tokenize("say 'funds are safu', then ('a' 'b)").filter((token) => token.kind === 'string').map((token) => token.text)).toEqual(['funds are safu', 'a']);
  });

  it('drops every hyphen glued between two words, and only those', () => {
    expect(tokenize('stop-loss take-profit-ish a - b 5-x -3 x-').map((token) => token.text)).toEqual(['stop', 'loss', 'take', 'profit', 'ish', 'a', '-', 'b', '5', '-', 'x', '-3', 'x', '-']);
  });
});
