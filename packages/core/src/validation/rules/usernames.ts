import type { Rule } from '../rule.js';

/** Spec 2.2: a tweet username is written without the leading @. */
export const usernames: Rule = {
  name: 'usernames',
  leaf: {
    sources: ['tweet'],
    check: (leaf, { sink }) => {
      const username = leaf.args.username;
      if (typeof username !== 'string' || !username.startsWith('@')) return;
      const path = `${leaf.pointer}/args/username`;
      const bare = username.replace(/^@+/, '');
      sink.error('username-at', path, `write the username without the leading @: ${JSON.stringify(bare)}`, {
        title: `Remove the @ from ${username}`,
        edits: [{ op: 'replace', path, value: bare }],
      });
    },
  },
};
