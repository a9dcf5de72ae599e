import { readAccountPost, readWorldEvent } from '../../language/intent.js';
import { LIMITS } from '../../language/limits.js';
import type { LeafVisit } from '../../language/query-walk.js';
import type { Rule, RuleContext } from '../rule.js';

/**
 * Spec 2.2, strict intent routing. An llm query that names an @account and reads like its post is an
 * error (it belongs to `tweet`, which watches that account's posts as they happen); softer signs of a
 * post or of a world event are warnings. A news text that reads like a post by an @account gets a
 * warning too.
 */
export const intentRouting: Rule = {
  name: 'intent-routing',
  leaf: {
    sources: ['llm', 'news'],
    check: (leaf, context) => (leaf.source === 'llm' ? checkLlm(leaf, context) : checkNews(leaf, context)),
  },
};

function checkLlm(leaf: LeafVisit, { sink }: RuleContext): void {
  const query = leaf.args.query;
  if (typeof query !== 'string') return;
  const post = readAccountPost(query);
  if (post?.username !== undefined) {
    const tweet: Record<string, unknown> = {
      source: 'tweet',
      args: { username: post.username, text: query, minConfidence: LIMITS.defaultMinConfidence },
    };
    if (leaf.node.holdFor !== undefined) tweet.holdFor = leaf.node.holdFor;
    sink.error(
      'intent-tweet',
      `${leaf.pointer}/source`,
      `this llm query reads like a post by @${post.username} ("${post.evidence}"); posts by a named account use a tweet condition: {"source": "tweet", "args": {"username": "${post.username}", "text": …}}`,
      { title: `Watch @${post.username}'s posts with a tweet condition`, edits: [{ op: 'replace', path: leaf.pointer, value: tweet }] },
    );
    return;
  }
  if (post) {
    sink.warning(
      'intent-tweet',
      `${leaf.pointer}/args/query`,
      `this llm query reads like a post on X ("${post.evidence}"); if it is about a named account's posts, use a tweet condition with its username`,
    );
    return;
  }
  const event = readWorldEvent(query);
  if (event) {
    sink.warning(
      'intent-news',
      `${leaf.pointer}/args/query`,
      `this llm query reads like a world event ("${event.evidence}"); events as reported use a news condition: {"source": "news", "args": {"text": …}}`,
    );
  }
}

function checkNews(leaf: LeafVisit, { sink }: RuleContext): void {
  const text = leaf.args.text;
  if (typeof text !== 'string') return;
  const post = readAccountPost(text);
  if (post?.username !== undefined) {
    sink.warning(
      'intent-tweet',
      `${leaf.pointer}/args/text`,
      `this news text reads like a post by @${post.username} ("${post.evidence}"); posts by a named account use a tweet condition`,
    );
  }
}
