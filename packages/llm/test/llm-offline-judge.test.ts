import fc from 'fast-check';
import { firstValueFrom, from } from 'rxjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type EvidenceItem, OfflineAnalyst, scoreEvidence } from '../src/index.js';
import { DAY, DEMO_END, demoMarket, HOUR } from './support/demo-market.js';

/** The FlowEx exploit of the demo dataset starts on day 19 of 28 at 14:00 and lasts two days. */
const HACK_DAY = DEMO_END - 28 * DAY + 19 * DAY + 14 * HOUR;

const VOCABULARY = ['flowex', 'exploit', 'hacked', 'drained', 'bridge', 'etf', 'inflows', 'approved', 'rejected', 'bullish', 'bearish', 'memecoin', 'season', 'rally', 'crash', 'not', 'the', 'is', '$ETH', '$BTC', 'ETH', 'SEC', 'over'];

const text = fc.array(fc.constantFrom(...VOCABULARY), { minLength: 0, maxLength: 12 }).map((words) => words.join(' '));
const item = fc.record({ kind: fc.constantFrom('post' as const, 'news' as const), id: fc.string({ minLength: 1, maxLength: 6 }), text, views: fc.nat({ max: 5_000_000 }), smartReposts: fc.nat({ max: 50 }) });
const items = fc.array(item, { maxLength: 25 });

describe('scoreEvidence: the laws of the offline judgement', () => {
  it('never throws and stays an integer within 0..100, on any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.array(fc.record({ kind: fc.constantFrom('post' as const, 'news' as const), id: fc.string(), text: fc.string({ maxLength: 200 }) }), { maxLength: 10 }), (query, list) => {
        const { confidence } = scoreEvidence(query, list);
        expect(Number.isInteger(confidence)).toBe(true);
        expect(confidence).toBeGreaterThanOrEqual(0);
        expect(confidence).toBeLessThanOrEqual(100);
      }),
      { numRuns: 300 },
    );
  });

  it('an item leaning the predicate’s way never lowers the confidence; a neutral or opposed one never raises it', () => {
    fc.assert(
      fc.property(items, item, fc.constantFrom('Was FlowEx hacked?', 'Is $ETH bearish after the exploit?'), (list, extra, query) => {
        const before = scoreEvidence(query, list).confidence;
        const topic = query.includes('FlowEx') ? 'FlowEx' : '$ETH';
        const agreeing: EvidenceItem = { ...extra, text: `${topic} exploit: funds drained after the hack` };
        const neutral: EvidenceItem = { ...extra, text: `${topic} team hosts a call tomorrow` };
        const opposed: EvidenceItem = { ...extra, text: `${topic} bullish rally, funds recovered` };
        expect(scoreEvidence(query, [...list, agreeing]).confidence).toBeGreaterThanOrEqual(before);
        expect(scoreEvidence(query, [...list, neutral]).confidence).toBeLessThanOrEqual(before);
        expect(scoreEvidence(query, [...list, opposed]).confidence).toBeLessThanOrEqual(before);
      }),
      { numRuns: 300 },
    );
  });

  it('items that do not mention the topic change nothing', () => {
    fc.assert(
      fc.property(items, fc.array(fc.constantFrom('weather', 'football', 'recipe', 'garden'), { minLength: 1, maxLength: 6 }), (list, words) => {
        const query = 'Has the SEC approved the $ETH ETF?';
        const noise: EvidenceItem = { kind: 'post', id: 'noise', text: words.join(' ') };
        expect(scoreEvidence(query, [...list, noise]).confidence).toBe(scoreEvidence(query, list).confidence);
      }),
      { numRuns: 200 },
    );
  });

  it('is 0 without evidence, and without any topic or sentiment word', () => {
    expect(scoreEvidence('Was FlowEx hacked?', []).confidence).toBe(0);
    expect(scoreEvidence('what is it?', [{ kind: 'post', id: '1', text: 'FlowEx exploit, funds drained' }]).confidence).toBe(0);
  });

  it('more agreeing evidence reaches higher confidence, saturating toward 100', () => {
    const post = (id: number): EvidenceItem => ({ kind: 'post', id: String(id), text: 'FlowEx exploit: funds drained through the bridge', views: 10_000 });
    const scores = [1, 2, 4, 8, 16].map((n) => scoreEvidence('Was FlowEx hacked?', Array.from({ length: n }, (_, i) => post(i))).confidence);
    for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeGreaterThan(scores[i - 1] as number);
    expect(scores[0]).toBeGreaterThan(0);
    expect(scores[4]).toBeGreaterThanOrEqual(95);
  });

  it('a negated predicate leans the other way', () => {
    const evidence: EvidenceItem[] = [1, 2, 3].map((i) => ({ kind: 'news', id: String(i), text: 'SEC approves the $ETH ETF' }));
    expect(scoreEvidence('Has the SEC approved the $ETH ETF?', evidence).confidence).toBeGreaterThan(70);
    expect(scoreEvidence('Has the SEC not approved the $ETH ETF?', evidence).confidence).toBe(0);
  });
});

describe('OfflineAnalyst judge on the seeded demo dataset', () => {
  let analyst: OfflineAnalyst;
  beforeAll(() => {
    analyst = new OfflineAnalyst(demoMarket());
  });
  const judge = (query: string, at: number, periodMs?: number) => firstValueFrom(from(analyst.provider.judge({ query, speed: 'fast', at, ...(periodMs === undefined ? {} : { periodMs }) } as never)));

  it('finds the FlowEx exploit while it is news, and not a week later', async () => {
    const during = await judge('Was FlowEx hacked?', HACK_DAY + DAY);
    const later = await judge('Was FlowEx hacked?', DEMO_END);
    expect(during.confidence).toBeGreaterThanOrEqual(80);
    expect(during.reasoning).toMatch(/^Offline heuristic over the 24h to 2026-11-08 14:00 UTC: \d+ of \d+ posts and news items match "flowex"/);
    expect(later.confidence).toBe(0);
  });

  it('a period given with the request sets the window', async () => {
    const hour = await judge('Was FlowEx hacked?', HACK_DAY + DAY, HOUR);
    expect(hour.reasoning).toContain('over the 1h to');
    const before = await judge('Was FlowEx hacked?', HACK_DAY - HOUR, 3 * HOUR);
    expect(before.confidence).toBe(0);
  });

  it('never throws and stays within 0..100 on arbitrary predicates against the data', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 120 }), fc.integer({ min: DEMO_END - 28 * DAY, max: DEMO_END }), async (query, at) => {
        const { confidence } = await judge(query, at);
        expect(confidence).toBeGreaterThanOrEqual(0);
        expect(confidence).toBeLessThanOrEqual(100);
      }),
      { numRuns: 40 },
    );
  });

  it('is deterministic', async () => {
    const first = await judge('Are memecoins pumping?', DEMO_END - 3 * DAY);
    expect(await judge('Are memecoins pumping?', DEMO_END - 3 * DAY)).toEqual(first);
  });
});
