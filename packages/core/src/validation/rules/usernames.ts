import { argsOf } from '../../language/query-walk.js';
import { joinPointer } from '../../util/json-pointer.js';
import type { Rule } from '../rule.js';

/** Spec 2.2: a tweet username is written without the leading @. */
export const usernames: Rule = ({ leaves, sink }) => {
  for (const leaf of leaves) {
    if (leaf.node.source !== 'tweet') continue;
    const username = argsOf(leaf.node).username;
    if (typeof username !== 'string' || !username.startsWith('@')) continue;
    const path = joinPointer(leaf.pointer, 'args', 'username');
    const bare = username.replace(/^@+/, '');
    sink.error('username-at', path, `write the username without the leading @: ${JSON.stringify(bare)}`, {
      title: `Remove the @ from ${username}`,
      edits: [{ op: 'replace', path, value: bare }],
    });
  }
};
