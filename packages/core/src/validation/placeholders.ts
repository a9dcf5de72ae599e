import { eqlSchema } from '../generated/eql-schema.js';
import { isRecord } from '../util/json-pointer.js';

/**
 * A value to put in a required property that is missing, for the quick fix "add it": valid where the
 * schema makes that easy (a default, the first allowed value, a symbol, a duration), otherwise a
 * visible placeholder (`TODO: message`) the user replaces.
 */

/** Typical values of properties by name: valid, and plain about what goes there. */
const BY_NAME: Readonly<Record<string, unknown>> = {
  symbol: 'BTC',
  exchange: 'paper',
  period: '1h',
  expiresIn: '24h',
  cooldown: '1h',
  url: 'https://example.com/hook',
  stepId: 'step',
  side: 'buy',
};

const MAX_HOPS = 8;

/** The schema of a property with its `$ref`s to `#/$defs/…` followed. */
function resolved(schema: unknown): Record<string, unknown> {
  let current: unknown = schema;
  for (let hop = 0; hop < MAX_HOPS && isRecord(current) && typeof current.$ref === 'string'; hop += 1) {
    const name = /^#\/\$defs\/(.+)$/.exec(current.$ref)?.[1];
    const target: unknown = name === undefined ? undefined : (eqlSchema.$defs as Record<string, unknown>)[name];
    if (target === undefined) break;
    const { $ref: _ref, ...own } = current;
    current = { ...(target as Record<string, unknown>), ...own };
  }
  return isRecord(current) ? current : {};
}

/** The placeholder for the missing property `name`, whose schema is `schema` (as the parent schema lists it). */
export function placeholderFor(name: string, schema: unknown): unknown {
  const property = resolved(schema);
  if (property.default !== undefined) return property.default;
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0];
  if ('const' in property) return property.const;
  if (name in BY_NAME) return BY_NAME[name];
  const type: unknown = Array.isArray(property.type) ? (property.type as unknown[])[0] : property.type;
  switch (type) {
    case 'number':
    case 'integer': {
      if (typeof property.minimum === 'number') return property.minimum;
      if (typeof property.exclusiveMinimum === 'number') return property.exclusiveMinimum + 1;
      return 1;
    }
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return `TODO: ${name}`;
  }
}
