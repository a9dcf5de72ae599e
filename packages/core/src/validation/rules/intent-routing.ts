import { readAccountPost, readWorldEvent } from '../../language/intent.js';
import { LIMITS } from '../../language/limits.js';
import { argsOf } from '../../language/query-walk.js';
import { joinPointer } from '../../util/json-pointer.js';
import type { Rule } from '../rule.js';

/**
 * Spec 2.2, strict intent routing. An llm query that names an @account and reads like its post is an
 * error (it belongs to `tweet`, which watches that account's posts as they happen); softer signs of a
 * post or of a world event are warnings. A news text that names an @account gets a warning too.
 */
export const intentRouting: Rule = ({ leaves, sink }) => {
  for (const leaf of leaves) {
    const args = argsOf(leaf.node);
    if (leaf.node.source === 'llm' && typeof args.query === 'string') {
      const queryPath = joinPointer(leaf.pointer, 'args', 'query');
      const post = readAccountPost(args.query);
      if (post?.username !== undefined) {
        const tweet: Record<string, unknown> = {
          source: 'tweet',
          args: { username: post.username, text: args.query, minConfidence: LIMITS.defaultMinConfidence },
        };
        if (leaf.node.holdFor !== undefined) tweet.holdFor = leaf.node.holdFor;
        sink.error(
          'intent-tweet',
          joinPointer(leaf.pointer, 'source'),
          `this llm query reads like a post by @${post.username} ("${post.evidence}"); posts by a named account use a tweet condition: {"source": "tweet", "args": {"username": "${post.username}", "text": …}}`,
          { title: `Watch @${post.username}'s posts with a tweet condition`, edits: [{ op: 'replace', path: leaf.pointer, value: tweet }] },
        );
        continue;
      }
      if (post) {
        sink.warning(
          'intent-tweet',
          queryPath,
          `this llm query reads like a post on X ("${post.evidence}"); if it is about a named account's posts, use a tweet condition with its username`,
        );
        continue;
      }
      const event = readWorldEvent(args.query);
      if (event) {
        sink.warning(
          'intent-news',
          queryPath,
          `this llm query reads like a world event ("${event.evidence}"); events as reported use a news condition: {"source": "news", "args": {"text": …}}`,
        );
      }
    } else if (leaf.node.source === 'news' && typeof args.text === 'string') {
      const post = readAccountPost(args.text);
      if (post?.username !== undefined) {
        sink.warning(
          'intent-tweet',
          joinPointer(leaf.pointer, 'args', 'text'),
          `this news text names @${post.username} posting ("${post.evidence}"); posts by a named account use a tweet condition`,
        );
      }
    }
  }
};
