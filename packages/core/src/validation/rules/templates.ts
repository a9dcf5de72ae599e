import { closest, distance } from 'fastest-levenshtein';
import { hasPlaceholders, placeholdersOf, readTemplate, renderTemplate, sampleView } from '../../language/message-template.js';
import type { Rule, RuleContext } from '../rule.js';

/** The texts of outputs that take placeholders (message-template.ts). */
const TEMPLATED: Readonly<Record<string, readonly string[]>> = { notify: ['message', 'title'], messenger_bot: ['message'], webhook: ['body'] };

/** A JSON webhook body (with its placeholders filled with samples) that does not parse. */
function checkJson(body: string, path: string, sink: RuleContext['sink']): void {
  try {
    JSON.parse(body);
  } catch (error) {
    sink.error('invalid-webhook-body', path, `the body is not JSON once its placeholders are filled (${error instanceof Error ? error.message : String(error)}); put placeholders inside strings ("{{symbol}}"), or send it as contentType "text/plain"`);
  }
}

/** The known placeholder nearest to `name`, when it is near enough to be a typo of it. */
function nearest(name: string, known: readonly string[]): string | undefined {
  const best = closest(name, [...known]);
  return distance(name.toLowerCase(), best.toLowerCase()) <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/**
 * Placeholders in notify and bot texts and webhook bodies (steps and llm callbacks): plain `{{name}}` tags
 * only, each a name the trigger gives (`firedAt`, `symbol`, `AND.1.value`…), with a did-you-mean for a
 * typo; a JSON webhook body must be JSON once its placeholders are filled.
 */
export const templates: Rule = {
  name: 'templates',
  action: {
    types: ['notify', 'messenger_bot', 'webhook'],
    check: (action, { sink, query }) => {
      let known: string[] | undefined;
      for (const field of TEMPLATED[String(action.type)] ?? []) {
        const text = action.params[field];
        if (typeof text !== 'string') continue;
        const path = `${action.pointer}/params/${field}`;
        const json = field === 'body' && action.params.contentType !== 'text/plain';
        if (!hasPlaceholders(text)) {
          if (json) checkJson(text, path, sink);
          continue;
        }
        const reading = readTemplate(text);
        if (reading.problem !== undefined) {
          sink.error('invalid-template', path, `${field}: ${reading.problem}`);
          continue;
        }
        known ??= placeholdersOf(query?.conditions);
        const unknown = reading.names.filter((name) => !known!.includes(name));
        if (unknown.length === 0 && json) checkJson(renderTemplate(text, sampleView(query?.conditions), 'json'), path, sink);
        for (const name of unknown) {
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
