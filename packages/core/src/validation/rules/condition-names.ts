import { RESERVED_NAMES } from '../../language/message-template.js';
import type { Rule } from '../rule.js';

/** Condition names (for placeholders such as `{{oversold.value}}`): each given once, none a placeholder already (`value`, `title`…). */
export const conditionNames: Rule = {
  name: 'condition-names',
  request: ({ leaves, sink }) => {
    const seen = new Map<string, string>();
    for (const leaf of leaves) {
      const name = leaf.node.name;
      if (typeof name !== 'string') continue;
      const path = `${leaf.pointer}/name`;
      if (RESERVED_NAMES.has(name)) {
        sink.error('condition-name', path, `"${name}" is a placeholder already ({{${name}}}); give the condition another name`);
        continue;
      }
      const first = seen.get(name);
      if (first !== undefined) sink.error('condition-name', path, `the name "${name}" is given to the condition at ${first} already`);
      else seen.set(name, leaf.pointer);
    }
  },
};
