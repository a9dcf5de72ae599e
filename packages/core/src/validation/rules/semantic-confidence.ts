import { LIMITS } from '../../language/limits.js';
import type { Rule } from '../rule.js';

/**
 * Confidence thresholds of tweet, news and llm conditions. The range (0 to 100) is the schema's;
 * here: a low threshold matches noise, an operator/value pair replaces args.minConfidence, and
 * `<`, `<=`, `!=` on a confidence hold for nearly anything.
 */
export const semanticConfidence: Rule = {
  name: 'semantic-confidence',
  leaf: {
    sources: ['tweet', 'news', 'llm'],
    check: (leaf, { sink }) => {
      const { node } = leaf;
      const minConfidence = leaf.args.minConfidence;
      if (typeof minConfidence === 'number' && minConfidence >= 0 && minConfidence < LIMITS.lowConfidence) {
        sink.warning(
          'low-confidence',
          `${leaf.pointer}/args/minConfidence`,
          `a minConfidence of ${minConfidence} matches loosely related items too; ${LIMITS.defaultMinConfidence} is a good start`,
        );
      }
      const { operator } = node;
      if (operator === undefined) return;
      if (minConfidence !== undefined) {
        sink.warning('confidence-overridden', `${leaf.pointer}/args/minConfidence`, 'operator and value compare the confidence and take the place of args.minConfidence');
      }
      if (operator === '<' || operator === '<=' || operator === '!=') {
        sink.warning(
          'confidence-operator',
          `${leaf.pointer}/operator`,
          `confidence ${String(operator)} ${String(node.value)} holds for almost any item; use >= to require a close match`,
        );
      }
    },
  },
};
