/**
 * The last reading of a clause no phrase rule understood: the intent reader of the core (the same
 * one the validator's routing rule uses) decides whether the words are a post by a named account
 * (a tweet condition) or a world event (a news condition). Anything else stays not understood.
 */
import { readAccountPost, readWorldEvent, type ConditionNode } from '@eql/core';
import { newsCondition, tweetCondition } from '../grammar/source-rules.js';

/**
 * Macro and market events the core's reader does not list (it reads approvals, exploits, sanctions,
 * rate cuts, listings, …): central banks, economic releases, depegs, unlocks. Read only here, for
 * routing plain words, never for validation.
 */
const MACRO_EVENT =
  /\b(fed|federal reserve|ecb|boj|fomc|cpi|ppi|inflation|jobs report|non ?farm|payrolls|unemployment|gdp|recession|tariffs?|interest rates?|cuts? (?:interest )?rates|raises? (?:interest )?rates|hikes? (?:interest )?rates|rate decision|defaults?|de-?pegs?|halts? withdrawals|freezes? withdrawals|token unlock|unlocks?|airdrops?|mainnet|goes bankrupt)\b/i;

/** Posting verbs: with no handle written, the account is asked for. */
const POSTING = /\b(posts?|posted|says|said|writes|wrote|mentions|mentioned|tweets?|tweeted|retweets?|replies|replied|shills)\b/i;

/** A condition read by intent (with a note saying so), a question, or nothing. */
export type Routed = { node: ConditionNode; note: string } | { question: string } | undefined;

/** Routes the text of a clause by intent, or returns undefined when it reads as neither. */
export function routeByIntent(text: string): Routed {
  const cleaned = text.replace(/^(when|if|once|whenever|as soon as|after|in case)\s+/i, '').trim();
  if (cleaned === '') return undefined;
  const post = readAccountPost(cleaned);
  if (post?.username !== undefined) {
    const topic = cleaned.replace(new RegExp(`@${post.username}\\b`, 'g'), '').replace(/\s+/g, ' ').trim();
    return { node: tweetCondition(post.username, topic === '' ? cleaned : topic), note: `"${cleaned}" reads as a post by @${post.username} (${post.evidence}), so a tweet condition watches that account` };
  }
  if (post) return { question: `"${cleaned}" reads like a post on X; which account should I watch? Give its @handle, for example "a post by @elonmusk about …".` };
  const event = readWorldEvent(cleaned)?.evidence ?? MACRO_EVENT.exec(cleaned)?.[0];
  if (event !== undefined) return { node: newsCondition(cleaned), note: `"${cleaned}" reads as a world event ("${event}"), so a news condition watches for it` };
  if (POSTING.test(cleaned)) return { question: `"${cleaned}" reads like a post; which account should I watch? Give its @handle, for example "a post by @saylor about bitcoin".` };
  const handle = /@([A-Za-z0-9_]{1,15})\b/.exec(cleaned);
  if (handle) {
    const topic = cleaned.replace(handle[0], '').trim();
    return { question: `Do you mean a post by @${handle[1]}? Say "a post by @${handle[1]} about ${topic === '' ? '…' : topic}".` };
  }
  return undefined;
}
