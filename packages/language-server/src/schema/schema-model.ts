import { eqlSchema, isRecord, joinPointer, parsePointer } from '@eql/core';

/** A node of the JSON Schema, read-only. */
export type SchemaNode = Readonly<Record<string, unknown>>;

/** One property an object may have, as the schema says it. */
export interface PropertyInfo {
  name: string;
  /** The property's schema with its `$ref` followed (the property's own keywords win). */
  schema: SchemaNode;
  description?: string;
  required: boolean;
  /** A short type for people: `duration`, `integer 1 to 500`, `"fast" | "expert" | "adaptive"`. */
  type: string;
  default?: unknown;
  /** The allowed values of an enum or const. */
  values?: readonly unknown[];
}

/**
 * One value to choose from (a source, method, action type or operator) with its description for completion and
 * hover.
 */
export interface ChoiceInfo {
  name: string;
  description?: string;
}

/**
 * The request schema (`eqlSchema` of `@eql/core`) as completion and hover need it: the schema at a
 * JSON pointer of a partial request (discriminators, `if`/`then`/`else` and `$ref` followed on the
 * values present), the properties of an object there, and the lists of sources, methods, action
 * types and operators. Nothing here is written by hand: it is all read from `$defs`.
 */
export interface SchemaModel {
  /** The schema of the value at `pointer` inside `request` (which may be partial), or undefined off-schema. */
  schemaAt(request: unknown, pointer: string): SchemaNode | undefined;
  /** The property at `pointer` (its last token names it), or undefined when the parent does not define it. */
  propertyAt(request: unknown, pointer: string): PropertyInfo | undefined;
  /**
   * The properties the object at `pointer` may have. `without` leaves a key of the object out of
   * the reading (the one being typed). An empty object gets the properties of every branch of an
   * `if` (a condition or a group).
   */
  propertiesAt(request: unknown, pointer: string, options?: { without?: string }): PropertyInfo[];
  /** The condition sources (price, ta, tweet, news, llm, cron). */
  sources(): ChoiceInfo[];
  /** Methods of a source; empty for sources without methods (tweet, news). */
  methods(source: string): ChoiceInfo[];
  /** The description of a condition of this source and method. */
  conditionDoc(source: string, method?: string): string | undefined;
  /** Arguments of a condition. */
  args(source: string, method?: string): PropertyInfo[];
  /** The action types (notify, webhook, messenger_bot, llm, market_order, limit_order). */
  actionTypes(): ChoiceInfo[];
  /** Params of an action type, or of a callback action of an llm action. */
  params(type: string, options?: { callback?: boolean }): PropertyInfo[];
  /** The comparison operators, each with what it means. */
  operators(): ChoiceInfo[];
  /** The named definition (`$defs/<name>`). */
  definition(name: string): SchemaNode | undefined;
}

const OPERATOR_DOCS: Readonly<Record<string, string>> = {
  '>': 'greater than (a level: holds whenever the comparison holds)',
  '>=': 'greater than or equal (a level)',
  '<': 'less than (a level)',
  '<=': 'less than or equal (a level)',
  '==': 'equal (a level; on a continuous series an exact match is rare)',
  '!=': 'not equal (a level)',
  crosses_above: 'holds only at the tick where the value passes above the threshold (previous <= threshold < new)',
  crosses_below: 'holds only at the tick where the value passes below the threshold (previous >= threshold > new)',
};

/** The schema model of the server, over `eqlSchema` by default (tests may pass another schema). */
export class DefaultSchemaModel implements SchemaModel {
  private readonly defs: Readonly<Record<string, SchemaNode>>;

  constructor(private readonly root: SchemaNode = eqlSchema) {
    this.defs = (isRecord(root.$defs) ? root.$defs : {}) as Record<string, SchemaNode>;
  }

  definition(name: string): SchemaNode | undefined {
    return this.defs[name];
  }

  schemaAt(request: unknown, pointer: string): SchemaNode | undefined {
    let node: SchemaNode | undefined = this.root;
    let value: unknown = request;
    for (const token of parsePointer(pointer)) {
      if (node === undefined) return undefined;
      node = this.childSchema(node, value, token);
      value = childValue(value, token);
    }
    return node === undefined ? undefined : this.resolve(node);
  }

  propertyAt(request: unknown, pointer: string): PropertyInfo | undefined {
    const tokens = parsePointer(pointer);
    const name = tokens.pop();
    if (name === undefined) return undefined;
    const parentPointer = joinPointer('', ...tokens);
    return this.propertiesAt(request, parentPointer).find((property) => property.name === name);
  }

  propertiesAt(request: unknown, pointer: string, options: { without?: string } = {}): PropertyInfo[] {
    const node = this.schemaAtRaw(request, pointer);
    if (node === undefined) return [];
    let value: unknown = request;
    for (const token of parsePointer(pointer)) value = childValue(value, token);
    if (isRecord(value) && options.without !== undefined && options.without in value) {
      const { [options.without]: _typed, ...rest } = value;
      value = rest;
    }
    return this.propertiesOf(node, value);
  }

  sources(): ChoiceInfo[] {
    return enumOf(this.ownProperty(this.defs.condition, 'source')).map((name) => choice(String(name), this.conditionDoc(String(name))));
  }

  methods(source: string): ChoiceInfo[] {
    const nodes = this.expand(this.defs.condition ?? {}, { source });
    const methods = new Set<string>();
    for (const node of nodes) for (const method of enumOf(this.ownProperty(node, 'method'))) methods.add(String(method));
    return [...methods].map((method) => choice(method, this.conditionDoc(source, method)));
  }

  conditionDoc(source: string, method?: string): string | undefined {
    const value = method === undefined ? { source } : { source, method };
    const nodes = this.expand(this.defs.condition ?? {}, value);
    for (let i = nodes.length - 1; i >= 0; i -= 1) {
      const description = nodes[i]?.description;
      if (typeof description === 'string' && nodes[i] !== this.defs.condition) return description;
    }
    return undefined;
  }

  args(source: string, method?: string): PropertyInfo[] {
    const value: Record<string, unknown> = method === undefined ? { source } : { source, method };
    const argsSchema = this.childSchema(this.defs.condition ?? {}, value, 'args');
    return argsSchema === undefined ? [] : this.propertiesOf(argsSchema, {});
  }

  actionTypes(): ChoiceInfo[] {
    return enumOf(this.ownProperty(this.defs.action, 'type')).map((name) => choice(String(name), this.actionDoc(String(name))));
  }

  params(type: string, options: { callback?: boolean } = {}): PropertyInfo[] {
    const base = options.callback === true ? this.defs.callbackAction : this.defs.action;
    const paramsSchema = this.childSchema(base ?? {}, { type }, 'params');
    return paramsSchema === undefined ? [] : this.propertiesOf(paramsSchema, {});
  }

  operators(): ChoiceInfo[] {
    return enumOf(this.defs.operator).map((name) => choice(String(name), OPERATOR_DOCS[String(name)]));
  }

  // ------------------------------------------------------------------ resolution

  private actionDoc(type: string): string | undefined {
    const params = this.childSchema(this.defs.action ?? {}, { type }, 'params');
    const resolved = params === undefined ? undefined : this.resolve(params);
    const title = typeof resolved?.title === 'string' ? resolved.title : undefined;
    return typeof resolved?.description === 'string' ? resolved.description : title;
  }

  /** The schema at pointer without the final `$ref` resolution (kept for the property's own keywords). */
  private schemaAtRaw(request: unknown, pointer: string): SchemaNode | undefined {
    let node: SchemaNode | undefined = this.root;
    let value: unknown = request;
    for (const token of parsePointer(pointer)) {
      if (node === undefined) return undefined;
      node = this.childSchema(node, value, token);
      value = childValue(value, token);
    }
    return node;
  }

  /** The schema of `token` inside a value of schema `node`. */
  private childSchema(node: SchemaNode, value: unknown, token: string): SchemaNode | undefined {
    const nodes = this.expand(node, value);
    if (Array.isArray(value) || nodes.some((candidate) => isRecord(candidate.items))) {
      for (let i = nodes.length - 1; i >= 0; i -= 1) {
        const items = nodes[i]?.items;
        if (isRecord(items) && /^\d+$/.test(token)) return items;
      }
    }
    for (let i = nodes.length - 1; i >= 0; i -= 1) {
      const properties = nodes[i]?.properties;
      if (isRecord(properties) && isRecord(properties[token])) return properties[token];
    }
    for (let i = nodes.length - 1; i >= 0; i -= 1) {
      const additional = nodes[i]?.additionalProperties;
      if (isRecord(additional)) return additional;
      if (additional === true) return {};
    }
    return undefined;
  }

  private propertiesOf(node: SchemaNode, value: unknown): PropertyInfo[] {
    const nodes = this.expand(node, value);
    const required = new Set<string>();
    const properties = new Map<string, SchemaNode>();
    for (const candidate of nodes) {
      if (Array.isArray(candidate.required)) for (const name of candidate.required) if (typeof name === 'string') required.add(name);
      if (isRecord(candidate.properties)) for (const [name, schema] of Object.entries(candidate.properties)) if (isRecord(schema)) properties.set(name, schema);
    }
    return [...properties].map(([name, schema]) => this.propertyInfo(name, schema, required.has(name)));
  }

  private propertyInfo(name: string, raw: SchemaNode, required: boolean): PropertyInfo {
    const schema = this.resolve(raw);
    const info: PropertyInfo = { name, schema, required, type: this.typeLabel(raw, schema) };
    if (typeof schema.description === 'string') info.description = schema.description;
    if (schema.default !== undefined) info.default = schema.default;
    const values = enumOf(schema);
    if (values.length > 0) info.values = values;
    return info;
  }

  /** What a value is, in EQL's words (text, whole number, one of fast or expert, …), never a schema's or TypeScript's type name. */
  private typeLabel(raw: SchemaNode, schema: SchemaNode): string {
    const values = enumOf(schema);
    if (values.length === 1) return `always ${plainValue(values[0])}`;
    if (values.length > 0) return `one of ${orList(values.map(plainValue))}`;
    const ref = refName(raw) ?? refName(schema);
    const named = ref === undefined ? undefined : REF_LABELS[ref];
    if (named !== undefined) return named;
    const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : typeof schema.type === 'string' ? [schema.type] : [isRecord(schema.properties) ? 'object' : 'value'];
    const type = orList(types.map((name) => TYPE_WORDS[String(name)] ?? String(name)));
    const high = typeof schema.maximum === 'number' ? ` to ${schema.maximum}` : '';
    if (typeof schema.minimum === 'number') return `${type} ${schema.minimum}${high}`;
    if (typeof schema.exclusiveMinimum === 'number') return `${type} above ${schema.exclusiveMinimum}${high === '' ? '' : `,${high.replace(' to', ' at most')}`}`;
    return type;
  }

  /** `$ref` followed (repeatedly); the referring node's own keywords win (a property's description). */
  private resolve(node: SchemaNode): SchemaNode {
    let current = node;
    for (let hops = 0; hops < 16 && typeof current.$ref === 'string'; hops += 1) {
      const target = this.lookup(current.$ref);
      if (target === undefined) break;
      const { $ref: _ref, ...own } = current;
      current = { ...target, ...own };
    }
    return current;
  }

  private lookup(ref: string): SchemaNode | undefined {
    const match = /^#\/\$defs\/(.+)$/.exec(ref);
    return match?.[1] === undefined ? undefined : this.defs[match[1]];
  }

  /**
   * Every schema node that applies to `value` under `node`: the node, what it refers to, the
   * discriminated branch (by the value's discriminator property), the `then` or `else` of an `if`,
   * and `allOf` members; most general first.
   */
  private expand(node: SchemaNode, value: unknown, out: SchemaNode[] = [], depth = 0): SchemaNode[] {
    if (depth > 24) return out;
    if (typeof node.$ref === 'string') {
      const target = this.lookup(node.$ref);
      if (target !== undefined) this.expand(target, value, out, depth + 1);
    }
    out.push(node);
    if (Array.isArray(node.allOf)) for (const member of node.allOf) if (isRecord(member)) this.expand(member, value, out, depth + 1);
    const discriminator = isRecord(node.discriminator) ? node.discriminator.propertyName : undefined;
    if (typeof discriminator === 'string' && Array.isArray(node.oneOf)) {
      const tag = isRecord(value) ? value[discriminator] : undefined;
      if (tag !== undefined) {
        for (const branch of node.oneOf) {
          if (!isRecord(branch)) continue;
          const resolved = this.resolve(branch);
          if (enumOf(this.ownProperty(resolved, discriminator)).includes(tag)) {
            this.expand(branch, value, out, depth + 1);
            break;
          }
        }
      }
    }
    if (isRecord(node.if)) {
      const undecided = isRecord(value) && Object.keys(value).length === 0;
      const branches = undecided ? [node.then, node.else] : [this.matchesIf(node.if, value) ? node.then : node.else];
      for (const branch of branches) if (isRecord(branch)) this.expand(branch, value, out, depth + 1);
    }
    return out;
  }

  /** The `if` schemas of the EQL schema only test the type and required properties. */
  private matchesIf(test: SchemaNode, value: unknown): boolean {
    if (test.type === 'object' && !isRecord(value)) return false;
    if (Array.isArray(test.required)) return isRecord(value) && test.required.every((name) => typeof name === 'string' && name in value);
    return true;
  }

  private ownProperty(node: SchemaNode | undefined, name: string): SchemaNode | undefined {
    const properties = node?.properties;
    const property = isRecord(properties) ? properties[name] : undefined;
    return isRecord(property) ? this.resolve(property) : undefined;
  }
}

/** JSON Schema's type names in EQL's words. */
const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'text',
  integer: 'whole number',
  number: 'number',
  boolean: 'true or false',
  object: 'parameters',
  array: 'list',
  null: 'null',
  value: 'value',
};

/** A value as written in a query: text bare, the rest as JSON. */
function plainValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `a`, `a or b`, `a, b or c`. */
function orList(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1] ?? ''}`;
}

/** Types named by their definition: what people know them as. */
const REF_LABELS: Readonly<Record<string, string>> = {
  duration: 'duration (30m, 1h, 24h, 7d)',
  holdFor: 'duration (30m, 1h, 24h, 7d)',
  lookback: 'whole number 1 to 500',
  exchangeId: 'exchange (binance, hyperliquid, paper)',
  confidence: 'number 0 to 100',
  symbol: 'symbol (BTC, BTC/USDT, BTC-PERP)',
  stepId: 'step id',
  positiveNumber: 'number above 0',
  message: 'text',
  exitLevel: 'a price or a percentage (95000, 2.5%)',
  operand: 'number or live operand (ema of BTC)',
  conditionGroup: 'group of conditions (all of, any of)',
  repeatPolicy: 'repeat policy (cooldown, maxTriggers)',
  query: 'query (conditions, actions, expiresIn, repeat)',
  callbackAction: 'action (its type and parameters)',
};

function enumOf(node: SchemaNode | undefined): unknown[] {
  if (node === undefined) return [];
  if (Array.isArray(node.enum)) return node.enum as unknown[];
  if ('const' in node) return [node.const];
  return [];
}

function refName(node: SchemaNode): string | undefined {
  return typeof node.$ref === 'string' ? /([^/]+)$/.exec(node.$ref)?.[1] : undefined;
}

function childValue(value: unknown, token: string): unknown {
  if (Array.isArray(value)) return value[Number(token)];
  return isRecord(value) ? value[token] : undefined;
}

function choice(name: string, description: string | undefined): ChoiceInfo {
  return description === undefined ? { name } : { name, description };
}
