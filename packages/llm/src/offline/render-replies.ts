import type { AccountFacts, ChatFacts, MarketFacts, TokenFacts, TopicFacts } from '../context/local-facts.js';
import { compact, listWords, plural, signedPercent, utcMinute } from '../text/format.js';
import { accountBlock, byPosts, contractLines, eventLines, hours, momentum, narrativeLines, newsLines, postLines, tokenBlock, toneLine, trendingLines } from './render-blocks.js';

/**
 * The Markdown bodies of offline chat replies, one function per analysis type, from facts only.
 * Interpretive sentences follow fixed rules (thresholds named in docs/llm.md), so the same facts
 * always read the same.
 */

export function renderChat(facts: ChatFacts): string {
  const lines: string[] = [];
  for (const token of facts.tokens) lines.push(...tokenBlock(token, '### Token'), '');
  for (const account of facts.accounts) lines.push(...accountBlock(account, '### Account'), '');
  if (facts.unknown.length > 0) lines.push(`The local data knows nothing of ${listWords(facts.unknown, 6)}.`, '');
  if (facts.topic) lines.push(...topicBlock(facts.topic, '### Posts about'), '');
  if (facts.tokens.length === 0 && facts.accounts.length === 0 && !facts.topic) {
    lines.push('Your message names no token, account or topic word I can look up; here is what is trending.', '');
  }
  lines.push(`### Trending in the ${hours(facts.window)} to ${utcMinute(facts.window.to)}`, ...trendingLines(facts.trending));
  return lines.join('\n').trim();
}

function topicBlock(topic: TopicFacts, heading: string): string[] {
  const about = topic.keywords.length > 0 ? ` ${listWords(topic.keywords.map((word) => `"${word}"`), 6)}` : '';
  const lines = [`${heading}${about}`];
  if (topic.matched === 0) {
    lines.push(`No post of the ${hours(topic.window)} to ${utcMinute(topic.window.to)} matches.`);
  } else {
    lines.push(`${plural(topic.matched, 'post')} of the ${hours(topic.window)} to ${utcMinute(topic.window.to)} match${topic.matched === 1 ? 'es' : ''}.`);
    if (topic.events.length > 0) lines.push('', 'What they are about:', ...eventLines(topic.events));
    lines.push('', 'Most viewed:', ...postLines(topic.posts.slice(0, 5)));
  }
  if (topic.news.length > 0) lines.push('', 'News:', ...newsLines(topic.news));
  return lines;
}

export function renderMacro(facts: MarketFacts): string {
  const lines = [`### Market view: the ${hours(facts.window)} to ${utcMinute(facts.window.to)}`, '', '**Trending tokens**', ...trendingLines(facts.trending)];
  const ranked = byPosts(facts.trending);
  const risers = ranked.filter((row) => row.current_count >= 3 && (row.previous_count === 0 || row.change_percent >= 50));
  const leaders = ranked.slice(0, 3).map((row) => `$${row.token}`);
  if (leaders.length > 0) {
    lines.push('', `Most discussed: ${listWords(leaders)}.${risers.length > 0 ? ` Rising fastest: ${listWords(risers.map((row) => `$${row.token} (${signedPercent(row.previous_count > 0 ? row.change_percent : undefined)})`))}.` : ' No token is rising by half or more.'}`);
  }
  lines.push('', `**Most discussed narratives** (from ${plural(facts.postsRead, 'post')})`);
  lines.push(...(facts.narratives.length > 0 ? narrativeLines(facts.narratives) : ['No two posts share a pair of tokens or terms.']));
  if (facts.contracts.twitter.length > 0) lines.push('', '**Contracts posted on X**', ...contractLines(facts.contracts.twitter));
  if (facts.contracts.telegram.length > 0) lines.push('', '**Contracts posted on Telegram**', ...contractLines(facts.contracts.telegram));
  lines.push('', '**News**', ...(facts.news.length > 0 ? newsLines(facts.news) : ['No news item in the window.']));
  return lines.join('\n');
}

export function renderSummary(facts: TopicFacts): string {
  return topicBlock(facts, facts.keywords.length > 0 ? '### What happened: posts about' : '### What happened').join('\n');
}

export function renderToken(facts: TokenFacts, depth: 'intro' | 'analysis'): string {
  const lines = tokenBlock(facts, depth === 'intro' ? '### Introducing' : '### Analysis of');
  if (depth === 'intro') {
    if (facts.mentions + facts.previousMentions === 0) lines.push('', `No post of the last ${hours({ from: 0, to: 2 * (facts.window.to - facts.window.from) })} names $${facts.token}: the local data cannot introduce it.`);
    return lines.join('\n');
  }
  if (facts.daily) {
    lines.push('', '**Posts per UTC day, last 7 days**', '| day | posts |', '|---|---:|', ...facts.daily.map((entry) => `| ${entry.day} | ${entry.mentions} |`));
  }
  if (facts.tone) lines.push('', toneLine(facts.tone));
  if (facts.topAccounts && facts.topAccounts.length > 0) lines.push(`Most active accounts: ${facts.topAccounts.map((entry) => `@${entry.username} (${entry.posts})`).join(', ')}.`);
  lines.push('', '**Reading**', ...reading(facts));
  return lines.join('\n');
}

/** Rule-based interpretation of a token's facts (thresholds in docs/llm.md). */
function reading(facts: TokenFacts): string[] {
  const out = [`- Attention is ${momentum(facts.mentions, facts.previousMentions)}.`];
  if (facts.uniqueAccounts > 0) {
    const share = facts.smartAccounts / facts.uniqueAccounts;
    out.push(`- Smart accounts are ${Math.round(share * 100)}% of the accounts posting about it: ${share >= 0.3 ? 'strong' : share >= 0.1 ? 'some' : 'little'} smart participation.`);
    const top = facts.topAccounts?.[0];
    if (top && facts.mentions > 0) {
      const concentration = top.posts / facts.mentions;
      out.push(`- The most active account wrote ${Math.round(concentration * 100)}% of the posts: ${concentration >= 0.5 ? 'the talk is concentrated' : 'the talk is spread out'}.`);
    }
  }
  if (facts.mentions > 0) out.push(`- Average views per post: ${compact(facts.totalViews / facts.mentions)}.`);
  if (facts.news.length > 0) out.push(`- ${plural(facts.news.length, 'news item')} ${facts.news.length === 1 ? 'names' : 'name'} it; the latest: ${utcMinute(facts.news[0]?.publishedAt ?? 0)}.`);
  return out;
}

export function renderAccount(facts: AccountFacts): string {
  return accountBlock(facts, '### Account analysis:').join('\n');
}
