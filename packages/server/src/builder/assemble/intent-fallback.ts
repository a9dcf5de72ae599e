/**
 * The last reading of a clause no phrase rule understood: the intent reader of the core (the same
 * one the validator's routing rule uses) decides whether the words are a post by a named account
 * (a tweet condition) or a world event (a news condition). Anything else stays not understood.
 */
import { readAccountPost, readWorldEvent, type ConditionNode } from '@eql/core';
import { newsCondition, tweetCondition } from '../grammar/source-rules.js';

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
  const event = readWorldEvent(cleaned);
  if (event) return { node: newsCondition(cleaned), note: `"${cleaned}" reads as a world event ("${event.evidence}"), so a news condition watches for it` };
  return undefined;
}
