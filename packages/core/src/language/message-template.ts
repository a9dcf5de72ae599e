import Mustache from 'mustache';
import { isRecord } from '../util/json-pointer.js';
import { walkConditions } from './query-walk.js';

/**
 * Placeholders in the texts of a query's outputs (`notify` message and title, `messenger_bot` message,
 * webhook `body`): `{{firedAt}}`, `{{symbol}}`, `{{AND.1.value}}`, `{{oversold.value}}`, `{{price.BTC}}`. Mustache's syntax, restricted to plain placeholders: no
 * sections, partials or delimiter changes, so a template is text with holes, never logic. The view a
 * template is rendered with holds data only, in objects without a prototype: nothing in it can run.
 */

/** The fields of a condition a template may read: as `{{symbol}}` for the first condition, as `{{AND.0.symbol}}` by its path. */
export const CONDITION_FIELDS = ['symbol', 'value', 'threshold', 'operator', 'source', 'method'] as const;

/** The fields of the trigger a template may read. */
export const TRIGGER_FIELDS = ['title', 'queryId', 'stepId', 'triggerIndex', 'firedAt'] as const;

/** Names a condition cannot take: a placeholder of the trigger or of the first condition already means them. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set<string>([...TRIGGER_FIELDS, ...CONDITION_FIELDS]);

/** The longest a rendered text may be (characters); what goes past it is cut. */
export const MAX_RENDERED_CHARS = 16_384;

/** What a template reads, or why it is no template (a tag left open, a section). */
export type TemplateReading = { names: string[]; problem?: undefined } | { names?: undefined; problem: string };

/** A token of mustache's parse: its kind (`text`, `name`, `&` unescaped, `#` section…), its text, its place. */
type Token = [string, string, number, number, ...unknown[]];

const writer = new Mustache.Writer();

/** Whether `text` has anything a template would read (the cheap check before parsing). */
export function hasPlaceholders(text: string): boolean {
  return text.includes('{{');
}

/** The tokens of `template` and the placeholders it reads, or the problem that makes it no template. */
function parseTemplate(template: string): { tokens: Token[]; names: string[]; problem?: undefined } | { problem: string } {
  let tokens: Token[];
  try {
    tokens = writer.parse(template) as Token[];
  } catch (error) {
    return { problem: `${error instanceof Error ? error.message : String(error)}: a placeholder is written {{name}}` };
  } finally {
    // Parses are cached per writer by template: a query's texts would stay in memory for good.
    writer.clearCache();
  }
  const names: string[] = [];
  for (const [kind, value] of tokens) {
    if (kind === 'name' || kind === '&') {
      if (!/^[A-Za-z0-9_.:/-]+$/.test(value)) return { problem: `{{${value}}} is no placeholder: a placeholder is written {{name}} (letters, digits, _ and dots)` };
      names.push(value);
    } else if (kind === '#' || kind === '^') return { problem: `{{${kind}${value}}} opens a section: only placeholders such as {{${value}}} are allowed` };
    else if (kind === '>') return { problem: `{{>${value}}} is a partial: only placeholders such as {{${value}}} are allowed` };
    else if (kind === '=') return { problem: 'changing the delimiters ({{=...=}}) is not allowed' };
  }
  return { tokens, names };
}

/** The placeholders of `template` in order, or the problem that makes it no template. */
export function readTemplate(template: string): TemplateReading {
  if (!hasPlaceholders(template)) return { names: [] };
  const parsed = parseTemplate(template);
  return parsed.problem === undefined ? { names: parsed.names } : { problem: parsed.problem };
}

/** What the trigger gives a template. */
export interface TemplateTrigger {
  title?: string;
  queryId: string;
  stepId: string;
  triggerIndex: number;
  /** Epoch ms. */
  firedAt: number;
  /** The conditions' states (values, thresholds) by path inside `query.conditions` (`""`, `/AND/0`). */
  conditionStates: ReadonlyArray<{ path: string; value?: number; threshold?: number; source?: string; method?: string }>;
  /** The last price of each symbol the query's price and ta conditions read, when the trigger fired. */
  prices?: Readonly<Record<string, number>>;
}

/** What a condition says of itself: its name, symbol, operator, source and method. */
interface ConditionFact {
  name?: string;
  symbol?: string;
  /** `args.exchange`, when the condition names one (its prices are that venue's). */
  exchange?: string;
  operator?: string;
  source?: string;
  method?: string;
}

/** What a query's conditions say of themselves, by path: {@link conditionFacts}. */
export type ConditionFacts = ReadonlyMap<string, ConditionFact>;

/** The name, symbol, operator, source and method of each condition of `conditions`, by path. */
export function conditionFacts(conditions: unknown): ConditionFacts {
  const facts = new Map<string, ConditionFact>();
  walkConditions(conditions, '', (visit) => {
    if (visit.kind !== 'leaf') return;
    const fact: ConditionFact = {};
    if (typeof visit.node.name === 'string') fact.name = visit.node.name;
    if (typeof visit.args.symbol === 'string') fact.symbol = visit.args.symbol;
    if (typeof visit.args.exchange === 'string') fact.exchange = visit.args.exchange;
    if (typeof visit.node.operator === 'string') fact.operator = visit.node.operator;
    if (typeof visit.source === 'string') fact.source = visit.source;
    if (typeof visit.method === 'string') fact.method = visit.method;
    facts.set(visit.pointer, fact);
  });
  return facts;
}

/** The texts of an action that may hold placeholders: `message` and `title` (notify, messenger_bot), `body` (webhook). */
const TEMPLATED_PARAMS = ['message', 'title', 'body'] as const;

/** Whether any step of `actions` (or an llm step's callback) has a text with placeholders: only such queries keep their {@link conditionFacts}. */
export function actionsUseTemplates(actions: unknown): boolean {
  if (!Array.isArray(actions)) return false;
  for (const action of actions) {
    if (!isRecord(action)) continue;
    for (const target of [action, isRecord(action.params) && isRecord(action.params.callback) ? action.params.callback : undefined]) {
      const params = isRecord(target) && isRecord(target.params) ? target.params : undefined;
      if (params && TEMPLATED_PARAMS.some((name) => typeof params[name] === 'string' && hasPlaceholders(params[name]))) return true;
    }
  }
  return false;
}

/** An object without a prototype: `{{constructor}}` finds nothing in it. */
function bare(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

/** A condition's path inside `conditions` as the segments of its placeholder: `/AND/0/OR/1` is `AND.0.OR.1`. */
function segmentsOf(path: string): string[] {
  return path.split('/').slice(1);
}

/** Puts `value` in `view` at `segments`, making the objects on the way (without prototypes). */
function putAt(view: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let node = view;
  segments.forEach((segment, index) => {
    if (index === segments.length - 1) node[segment] = value;
    else {
      const next = node[segment];
      node = isRecord(next) ? next : (node[segment] = bare());
    }
  });
}

/** The data a template of this trigger is rendered with (see {@link placeholdersOf} for its names). */
export function templateView(trigger: TemplateTrigger, facts: ConditionFacts): Record<string, unknown> {
  const view = bare();
  if (trigger.title !== undefined) view.title = trigger.title;
  view.queryId = trigger.queryId;
  view.stepId = trigger.stepId;
  view.triggerIndex = trigger.triggerIndex;
  view.firedAt = new Date(trigger.firedAt).toISOString();
  const states = new Map(trigger.conditionStates.map((state) => [state.path, state]));
  if (trigger.prices !== undefined) {
    const prices = bare();
    for (const [symbol, price] of Object.entries(trigger.prices)) prices[symbol] = price;
    view.price = prices;
  }
  let first = true;
  for (const [path, fact] of facts) {
    const state = states.get(path);
    const entry = bare();
    if (fact.symbol !== undefined) entry.symbol = fact.symbol;
    if (fact.operator !== undefined) entry.operator = fact.operator;
    entry.source = fact.source ?? state?.source;
    entry.method = fact.method ?? state?.method;
    if (state?.value !== undefined) entry.value = state.value;
    if (state?.threshold !== undefined) entry.threshold = state.threshold;
    if (first) {
      first = false;
      for (const field of CONDITION_FIELDS) if (entry[field] !== undefined) view[field] = entry[field];
    }
    // A named condition is also `{{oversold.value}}` (names are checked apart from the fields above).
    if (fact.name !== undefined && !RESERVED_NAMES.has(fact.name)) view[fact.name] = entry;
    // The view mirrors the tree: `{{AND.0.OR.1.value}}`.
    const segments = segmentsOf(path);
    if (segments.length > 0) putAt(view, segments, entry);
  }
  return view;
}

/** The symbols whose last price a trigger gives (`{{price.BTC}}`): those the price and ta conditions read. */
export function pricedSymbols(facts: ConditionFacts): string[] {
  const symbols = new Set<string>();
  for (const fact of facts.values()) if ((fact.source === 'price' || fact.source === 'ta') && fact.symbol !== undefined) symbols.add(fact.symbol);
  return [...symbols];
}

/** Every placeholder a template of a query with these conditions may use. */
export function placeholdersOf(conditions: unknown): string[] {
  const names: string[] = [...TRIGGER_FIELDS, ...CONDITION_FIELDS];
  const facts = conditionFacts(conditions);
  for (const symbol of pricedSymbols(facts)) names.push(`price.${symbol}`);
  for (const [path, fact] of facts) {
    if (fact.name !== undefined && !RESERVED_NAMES.has(fact.name)) for (const field of CONDITION_FIELDS) names.push(`${fact.name}.${field}`);
    if (path === '') continue;
    const prefix = segmentsOf(path).join('.');
    for (const field of CONDITION_FIELDS) names.push(`${prefix}.${field}`);
  }
  return [...new Set(names)];
}

/**
 * The data to try a template with before any trigger: every placeholder the query may use, each `"0"`
 * (a webhook body that must be JSON is checked with it).
 */
export function sampleView(conditions: unknown): Record<string, unknown> {
  const view = bare();
  for (const name of placeholdersOf(conditions)) putAt(view, name.split('.'), '0');
  return view;
}

/** How rendered values are written: as they are (`text`), or as the inside of a JSON string (`json`). */
export type TemplateEscape = 'text' | 'json';

const escapes: Record<TemplateEscape, (value: unknown) => string> = {
  text: (value) => String(value),
  json: (value) => JSON.stringify(String(value)).slice(1, -1),
};

/**
 * `template` with its placeholders replaced from `view` (an absent value is empty), cut at
 * {@link MAX_RENDERED_CHARS}; a text that is no template (see {@link readTemplate}) is returned as it is.
 */
export function renderTemplate(template: string, view: Record<string, unknown>, escape: TemplateEscape = 'text'): string {
  if (!hasPlaceholders(template)) return template;
  const parsed = parseTemplate(template);
  if (parsed.problem !== undefined) return template;
  // In JSON every value is escaped: `{{{name}}}` and `{{&name}}` (unescaped tags) too.
  const tokens = escape === 'json' ? parsed.tokens.map((token) => (token[0] === '&' ? (['name', ...token.slice(1)] as Token) : token)) : parsed.tokens;
  const rendered = writer.renderTokens(tokens as unknown as string[][], new Mustache.Context(view), undefined, template, { escape: escapes[escape] });
  return rendered.length > MAX_RENDERED_CHARS ? rendered.slice(0, MAX_RENDERED_CHARS) : rendered;
}
