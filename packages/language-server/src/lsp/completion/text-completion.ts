import { MEASURES } from '@eql/syntax';
import type { CompletionItem, Range } from 'vscode-languageserver-types';
import { methodDoc, sourceDoc } from '../../schema/describe.js';
import { KEYWORD_DOCS } from '../../schema/docs.js';
import type { PropertyInfo, SchemaModel } from '../../schema/schema-model.js';
import type { ParsedDocument } from '../../workspace/eql-document.js';
import { ItemList, KIND, textName } from './items.js';
import { durationContext, type Head, headOf, isOperator, lastMeasure, NEXT_WORD, structure, subjectStart, windowed } from './text-context.js';
import { type ScanToken, scanText } from './text-scanner.js';

/** Arguments that the sentence itself says (docs/text-syntax.md, section 3): not offered inside `( … )`. */
const POSITIONAL: Readonly<Record<string, readonly string[]>> = {
  measure: ['symbol'],
  windowed: ['symbol', 'period'],
  tweet: ['username', 'text'],
  news: ['text'],
  llm: ['query', 'period'],
  once: ['at'],
  every: ['period'],
  notify: ['message'],
  webhook: ['url'],
  messenger_bot: ['message', 'chatId', 'botToken'],
  llmAction: ['prompt', 'callback'],
  order: ['side', 'size', 'amountUsd', 'positionSizePercent', 'symbol', 'exchange', 'price'],
  repeat: ['cooldown'],
};

const DURATIONS: Readonly<Record<string, readonly string[]>> = {
  llm: ['1h', '4h', '12h', '24h'],
  for: ['1m', '5m', '15m', '1h'],
  over: ['1h', '4h', '24h', '7d'],
  expires: ['1h', '24h', '7d', '30d'],
  repeat: ['15m', '1h', '4h', '24h'],
  every: ['1h', '1d', '1w'],
};

const CLAUSES = ['title', 'description', 'when', 'expires in', 'repeat after'] as const;
const ACTION_WORDS: ReadonlyArray<[label: string, type: string]> = [
  ['notify', 'notify'],
  ['webhook', 'webhook'],
  ['bot', 'messenger_bot'],
  ['llm', 'llm'],
  ['market buy', 'market_order'],
  ['market sell', 'market_order'],
  ['limit buy', 'limit_order'],
  ['limit sell', 'limit_order'],
  ['close', 'close_position'],
];
const CALLBACK_WORDS: ReadonlyArray<[label: string, type: string]> = [
  ['notify', 'notify'],
  ['webhook', 'webhook'],
  ['bot', 'messenger_bot'],
  ['market order', 'market_order'],
  ['limit order', 'limit_order'],
  ['market buy', 'market_order'],
  ['limit buy', 'limit_order'],
];
const OPERATOR_WORDS: ReadonlyArray<[label: string, json: string]> = [
  ['>', '>'],
  ['>=', '>='],
  ['<', '<'],
  ['<=', '<='],
  ['==', '=='],
  ['!=', '!='],
  ['crosses above', 'crosses_above'],
  ['crosses below', 'crosses_below'],
];

/**
 * Completion in the text form, from the pieces before the cursor: clauses at the top, condition
 * starters after `when` / `all of` / `[` / `,`, symbols after `of`, operators after a subject,
 * durations after `every` / `over` / `for` / `expires in` / `repeat after`, actions after `then` and
 * `as <stepId>`, and inside `( … )` the optional arguments of the construct and their values.
 */
export class TextCompletion {
  constructor(
    private readonly schema: SchemaModel,
    private readonly symbols: () => readonly string[],
  ) {}

  complete(document: ParsedDocument, offset: number): CompletionItem[] {
    const text = document.textDocument.getText();
    const scan = scanText(text, offset);
    if (scan.inLiteral) return [];
    const tokens = scan.tokens;
    let start = offset;
    const last = tokens.at(-1);
    if (last !== undefined && last.end === offset && (last.kind === 'word' || last.kind === 'number' || last.kind === 'duration' || last.kind === 'handle')) {
      start = last.start;
      tokens.pop();
    }
    const range: Range = { start: document.textDocument.positionAt(start), end: document.textDocument.positionAt(offset) };
    const list = new ItemList(range);
    this.fill(list, tokens);
    return list.items;
  }

  private fill(list: ItemList, tokens: ScanToken[]): void {
    const { open, section, matches } = structure(tokens);
    const innermost = open.at(-1);
    if (open.some((entry) => entry.char === '{') || (innermost?.char === '[' && open.some((entry) => entry.char === '('))) return;
    if (innermost?.char === '(') {
      const head = headOf(tokens, innermost.index, section);
      if (head !== undefined) this.options(list, tokens.slice(innermost.index + 1), head);
      return;
    }
    const word = (back: number) => {
      const token = tokens[tokens.length - back];
      return token === undefined ? undefined : token.kind === 'word' || token.kind === 'punct' || token.kind === 'operator' ? token.text : `<${token.kind}>`;
    };
    const [p1, p2, p3] = [word(1), word(2), word(3)];
    if (p1 === undefined) return this.clauses(list, tokens);
    if (p1 === 'when' || (p1 === 'of' && (p2 === 'all' || p2 === 'any')) || p1 === '[' || (p1 === ',' && section === 'when')) return this.conditionStarters(list);
    if (p1 === 'of') {
      if (p2 !== undefined && MEASURES.has(p2)) return this.symbolItems(list);
      if (section === 'then') return this.symbolItems(list);
      return;
    }
    if (p1 === 'crosses') return void ['above', 'below'].forEach((side) => list.keyword(side, KEYWORD_DOCS[side]));
    if (isOperator(p1) || ((p1 === 'above' || p1 === 'below') && p2 === 'crosses')) {
      if (p2 === 'confidence' || p3 === 'confidence') return;
      return this.measures(list, 'a live operand: ');
    }
    const next = NEXT_WORD[p1];
    if (next !== undefined) return void next.forEach((label) => list.keyword(label, KEYWORD_DOCS[label.split(' ')[0] ?? label]));
    if (p1 === 'confidence') return void OPERATOR_WORDS.slice(0, 6).forEach(([label]) => list.add(label, KIND.Operator, { detail: 'confidence comparison' }));
    if (p1 === 'market' || p1 === 'limit') return void ['buy', 'sell', 'order'].forEach((side) => list.keyword(side, KEYWORD_DOCS[side]));
    const durations = durationContext(p1, p2, section);
    if (durations !== undefined) return void DURATIONS[durations]?.forEach((duration) => list.add(duration, KIND.Value, { detail: 'duration' }));
    if (this.subjectComplete(tokens, matches)) return this.operators(list, tokens);
    if (p1 === 'then' || (p1 === ',' && section === 'then')) return this.actionStarters(list, ACTION_WORDS);
    if (p1 === 'callback') return this.actionStarters(list, CALLBACK_WORDS);
    if (p1 === 'as' || p1 === 'by' || p1 === 'about' || p1 === 'to' || p1 === 'via' || p1 === 'on' || p1 === 'title' || p1 === 'description') return;
    if (p2 === 'as') {
      this.actionStarters(list, ACTION_WORDS);
      return this.clauses(list, tokens);
    }
    if (section === 'when') {
      list.keyword('then', KEYWORD_DOCS.then);
      list.keyword('for', KEYWORD_DOCS.for);
      if (p1 === '<string>' || p1 === '<duration>') list.keyword('with confidence', KEYWORD_DOCS.with);
      return this.conditionStarters(list);
    }
    if (section === 'then') {
      list.keyword('as', KEYWORD_DOCS.as);
      return;
    }
    this.clauses(list, tokens);
  }

  private clauses(list: ItemList, tokens: ScanToken[]): void {
    const used = new Set(tokens.filter((token) => token.kind === 'word').map((token) => token.text));
    for (const clause of CLAUSES) {
      const first = clause.split(' ')[0] ?? clause;
      if (!used.has(first)) list.keyword(clause, KEYWORD_DOCS[first], clause === 'title' || clause === 'description' ? `${clause} ""` : `${clause} `);
    }
    if (used.has('when') && !used.has('then')) list.keyword('then', KEYWORD_DOCS.then);
  }

  private conditionStarters(list: ItemList): void {
    this.measures(list, '');
    list.keyword('tweet by', sourceDoc(this.schema, 'tweet'), 'tweet by @');
    list.keyword('news about', sourceDoc(this.schema, 'news'), 'news about ""');
    list.keyword('llm', sourceDoc(this.schema, 'llm'), 'llm "');
    list.keyword('at', methodDoc(this.schema, 'cron', 'once'));
    list.keyword('every', methodDoc(this.schema, 'cron', 'every'));
    list.keyword('all of', KEYWORD_DOCS.all);
    list.keyword('any of', KEYWORD_DOCS.any);
  }

  private measures(list: ItemList, prefix: string): void {
    for (const [word, series] of MEASURES) {
      list.add(word, KIND.Function, { insert: `${word} of `, detail: `${series.source}.${series.method}`, doc: `${prefix}${methodDoc(this.schema, series.source, series.method) ?? ''}` });
    }
  }

  private operators(list: ItemList, tokens: ScanToken[]): void {
    const docs = new Map(this.schema.operators().map((operator) => [operator.name, operator.description]));
    for (const [label, json] of OPERATOR_WORDS) list.add(label, KIND.Operator, { detail: json, ...withDoc(docs.get(json)) });
    const measure = lastMeasure(tokens);
    if (measure !== undefined && windowed(measure) && !tokens.slice(-3).some((token) => token.text === 'over')) list.keyword('over', KEYWORD_DOCS.over, 'over ');
    list.keyword('(', 'optional arguments, such as `(timeframe 1h, period 14)`');
  }

  private symbolItems(list: ItemList): void {
    for (const symbol of this.symbols()) list.add(symbol, KIND.Constant, { insert: textName(symbol), detail: 'symbol' });
  }

  private actionStarters(list: ItemList, words: ReadonlyArray<[string, string]>): void {
    const docs = new Map(this.schema.actionTypes().map((type) => [type.name, type.description]));
    for (const [label, type] of words) list.add(label, KIND.Keyword, { detail: type, insert: `${label} `, ...withDoc(docs.get(type) ?? KEYWORD_DOCS[label.split(' ')[0] ?? label]) });
  }

  /** Inside `( … )`: the optional arguments not given yet, or the values of the one being written. */
  private options(list: ItemList, inside: ScanToken[], head: Head): void {
    const properties = this.propertiesOf(head);
    const last = inside.at(-1);
    const before = inside.at(-2);
    if (last === undefined || last.text === ',') {
      const given = new Set(inside.filter((token, index) => token.kind === 'word' && (index === 0 || inside[index - 1]?.text === ',')).map((token) => token.text));
      for (const property of properties) if (!given.has(property.name)) list.property(property, `${property.name} `);
      return;
    }
    if (last.kind === 'word' && (before === undefined || before.text === ',')) {
      const property = properties.find((candidate) => candidate.name === last.text);
      if (property !== undefined) this.values(list, property);
    }
  }

  private values(list: ItemList, property: PropertyInfo): void {
    for (const value of property.values ?? []) {
      const text = typeof value === 'string' ? textName(value) : JSON.stringify(value);
      list.add(String(value), KIND.EnumMember, { insert: text, detail: property.name });
    }
    if (property.schema.type === 'boolean') for (const value of ['true', 'false']) list.add(value, KIND.Value, { detail: property.name });
    if (property.type.startsWith('duration')) for (const value of DURATIONS.for ?? []) list.add(value, KIND.Value, { detail: 'duration' });
    if (property.name === 'symbol') this.symbolItems(list);
  }

  private propertiesOf(head: Head): PropertyInfo[] {
    switch (head.kind) {
      case 'measure':
        return without(this.schema.args(head.source, head.method), POSITIONAL[head.windowed ? 'windowed' : 'measure']);
      case 'condition':
        return without(this.schema.args(head.source), POSITIONAL[head.source]);
      case 'cron':
        return without(this.schema.args('cron', head.method), POSITIONAL[head.method]);
      case 'repeat':
        return without(this.schema.propertiesAt({ query: { repeat: {} } }, '/query/repeat'), POSITIONAL.repeat);
      case 'action': {
        const positional = head.type === 'llm' ? POSITIONAL.llmAction : head.type.endsWith('_order') ? POSITIONAL.order : POSITIONAL[head.type];
        return without(this.schema.params(head.type, { callback: head.callback }), positional);
      }
    }
  }

  /** `price of BTC`, `change of BTC over 24h`, or a subject's closing `)`: an operator comes next. */
  private subjectComplete(tokens: ScanToken[], matches: ReadonlyMap<number, number>): boolean {
    const n = tokens.length;
    const at = (back: number) => tokens[n - back];
    const last = at(1);
    if (last === undefined) return false;
    if (last.text === ')') {
      const open = matches.get(n - 1);
      const measureIndex = open === undefined ? -1 : subjectStart(tokens, open);
      return measureIndex >= 0;
    }
    if (at(2)?.text === 'over' && last.kind === 'duration') return true;
    return at(2)?.text === 'of' && MEASURES.has(at(3)?.text ?? '') && (last.kind === 'word' || last.kind === 'string');
  }
}

function without(properties: PropertyInfo[], names: readonly string[] | undefined): PropertyInfo[] {
  const skip = new Set(names ?? []);
  return properties.filter((property) => !skip.has(property.name));
}

function withDoc(doc: string | undefined): { doc?: string } {
  return doc === undefined ? {} : { doc };
}
