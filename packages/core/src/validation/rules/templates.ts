import { closest, distance } from 'fastest-levenshtein';
import { hasPlaceholders, placeholdersOf, readTemplate } from '../../language/message-template.js';
import type { Rule } from '../rule.js';

/** The texts of outputs that take placeholders (message-template.ts). */
const TEMPLATED: Readonly<Record<string, readonly string[]>> = { notify: ['message', 'title'], messenger_bot: ['message'] };

/** The known placeholder nearest to `name`, when it is near enough to be a typo of it. */
function nearest(name: string, known: readonly string[]): string | undefined {
  const best = closest(name, [...known]);
  return distance(name.toLowerCase(), best.toLowerCase()) <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/**
 * Placeholders in notify and bot texts (steps and llm callbacks): plain `{{name}}` tags only, each a name
 * the trigger gives (`firedAt`, `symbol`, `AND.1.value`…), with a did-you-mean for a typo.
 */
export const templates: Rule = {
  name: 'templates',
  action: {
    types: ['notify', 'messenger_bot'],
    check: (action, { sink, query }) => {
      let known: string[] | undefined;
      for (const field of TEMPLATED[String(action.type)] ?? []) {
        const text = action.params[field];
        if (typeof text !== 'string' || !hasPlaceholders(text)) continue;
        const path = `${action.pointer}/params/${field}`;
        const reading = readTemplate(text);
        if (reading.problem !== undefined) {
          sink.error('invalid-template', path, `${field}: ${reading.problem}`);
          continue;
        }
        known ??= placeholdersOf(query?.conditions);
        for (const name of reading.names) {
          if (known.includes(name)) continue;
          const near = nearest(name, known);
          if (near !== undefined) {
            sink.error('unknown-placeholder', path, `{{${name}}} is not a placeholder of this query; did you mean {{${near}}}?`, {
              title: `Replace {{${name}}} with {{${near}}}`,
              edits: [{ op: 'replace', path, value: text.split(`{{${name}}}`).join(`{{${near}}}`) }],
            });
          } else sink.error('unknown-placeholder', path, `{{${name}}} is not a placeholder of this query (placeholders: ${known.slice(0, 12).join(', ')}${known.length > 12 ? ', …' : ''})`);
        }
      }
    },
  },
};
