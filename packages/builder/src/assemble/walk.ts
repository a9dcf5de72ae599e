/**
 * Walks the pieces of a message in order and groups them into clauses (one condition each), actions,
 * options and bare values. Word order is free inside a clause: a clause ends at a connector (`and`,
 * `or`, a comma), an action, a complete condition, or a second subject.
 */
import { HOUR } from '@eql/core';
import type { ActionDraft, ComparisonPiece, ConditionPiece, Located, MeasurePiece, OptionDraft, Piece, RemovePiece, SpanPiece } from '../grammar/pieces.js';
import { everyCondition } from '../grammar/schedule-rules.js';
import type { Amount } from '../grammar/values.js';

/** One condition as read: market pieces, or a complete condition, plus what modifies it. */
export interface ClauseDraft {
  /** The connector before it (`and`, `or`, or a comma that takes the next explicit one). */
  connector?: 'and' | 'or' | 'comma';
  symbol?: string;
  measure?: MeasurePiece;
  comparison?: ComparisonPiece;
  spans: SpanPiece[];
  exchange?: string;
  holdForMs?: number;
  complete?: ConditionPiece;
  /** `every 4h` after an llm condition: its period. */
  everyMs?: number;
  minConfidence?: number;
  speed?: 'fast' | 'expert' | 'adaptive';
  /** Token range covered, for quoting and intent reading. */
  from: number;
  to: number;
  /** Tokens not understood inside the clause. */
  unknown: number[];
}

/** The pieces of a message grouped: clauses, actions, options and bare values. */
export interface Walk {
  clauses: ClauseDraft[];
  actions: ActionDraft[];
  options: OptionDraft[];
  /** The connector before the first clause (`and only if …`, `or if …`): how it joins an earlier query. */
  leading?: 'and' | 'or';
  groupHoldMs?: number;
  bareSpans: SpanPiece[];
  bareAmounts: Amount[];
  chats: Array<string | number>;
  cues: Set<'also' | 'instead' | 'edit' | 'reset'>;
  removals: RemovePiece['types'];
  /** Every symbol named, in order (conditions, operands, actions). */
  symbols: string[];
  /** Tokens not understood outside any clause. */
  looseUnknown: number[];
  /** Every exchange named (conditions, orders, alone), in order. */
  exchangesNamed: string[];
}

type Item = Located | { kind: 'unknown'; from: number; to: number };

/** Groups the pieces (and the indexes of words not understood) into a walk. */
export function walk(pieces: readonly Located[], unknown: readonly number[]): Walk {
  const items: Item[] = [...pieces, ...unknown.map((index) => ({ kind: 'unknown' as const, from: index, to: index + 1 }))].sort((a, b) => a.from - b.from);
  const result: Walk = { clauses: [], actions: [], options: [], bareSpans: [], bareAmounts: [], chats: [], cues: new Set(), removals: [], symbols: [], looseUnknown: [], exchangesNamed: [] };
  let current: ClauseDraft | undefined;
  let last: ClauseDraft | undefined;
  let pending: ClauseDraft['connector'];

  const open = (item: Item): ClauseDraft => {
    const clause: ClauseDraft = { spans: [], unknown: [], from: item.from, to: item.to };
    if (pending !== undefined) clause.connector = pending;
    pending = undefined;
    result.clauses.push(clause);
    current = clause;
    return clause;
  };
  const close = (): void => {
    if (current) last = current;
    current = undefined;
  };
  const into = (item: Item, fits: (clause: ClauseDraft) => boolean): ClauseDraft => {
    if (current && fits(current)) {
      current.to = Math.max(current.to, item.to);
      return current;
    }
    close();
    return open(item);
  };
  const target = (): ClauseDraft | undefined => current ?? (pending === undefined || pending === 'comma' ? last : undefined);

  for (const item of items) {
    if (item.kind === 'unknown') {
      into(item, () => true).unknown.push(item.from);
      continue;
    }
    place(item);
  }
  close();
  return result;

  function place(piece: Located): void {
    switch (piece.kind) {
      case 'symbol':
        result.symbols.push(piece.symbol);
        into(piece, (clause) => clause.symbol === undefined && clause.complete === undefined && clause.measure?.symbol === undefined).symbol = piece.symbol;
        return;
      case 'measure': {
        if (piece.symbol !== undefined) result.symbols.push(piece.symbol);
        into(piece, (clause) => clause.measure === undefined && clause.comparison === undefined && clause.complete === undefined).measure = piece;
        return;
      }
      case 'comparison': {
        if (piece.threshold.kind === 'measure' && piece.threshold.measure.symbol !== undefined) result.symbols.push(piece.threshold.measure.symbol);
        into(piece, (clause) => clause.comparison === undefined && clause.complete === undefined).comparison = piece;
        return;
      }
      case 'span': {
        const clause = target();
        if (clause && clause.complete === undefined) clause.spans.push(piece);
        else result.bareSpans.push(piece);
        return;
      }
      case 'exchange': {
        result.exchangesNamed.push(piece.exchange);
        into(piece, (clause) => clause.complete === undefined && clause.exchange === undefined).exchange = piece.exchange;
        return;
      }
      case 'connector':
        close();
        if (piece.word === 'then' || piece.word === 'stop') pending = undefined;
        else if (piece.word !== 'either') {
          if (result.clauses.length === 0 && piece.word !== 'comma') result.leading = piece.word;
          pending = pending === undefined || pending === 'comma' ? piece.word : pending;
        }
        return;
      case 'condition':
        close();
        open(piece).complete = piece;
        return;
      case 'action':
        close();
        result.actions.push(piece.action);
        if (piece.action.type === 'order' && piece.action.symbol !== undefined) result.symbols.push(piece.action.symbol);
        if (piece.action.type === 'order' && piece.action.exchange !== undefined) result.exchangesNamed.push(piece.action.exchange);
        if (piece.action.type === 'llm' && piece.action.symbol !== undefined) result.symbols.push(piece.action.symbol);
        return;
      case 'option':
        option(piece.option, piece);
        return;
      case 'cue':
        result.cues.add(piece.cue);
        return;
      case 'remove':
        result.removals.push(...piece.types);
        return;
      case 'amount':
        result.bareAmounts.push(piece.amount);
        return;
      case 'chat':
        result.chats.push(piece.chatId);
        return;
    }
  }

  function option(draft: OptionDraft, piece: Piece & { from: number; to: number }): void {
    const clause = target();
    const semantic = [current, last].find((candidate) => candidate?.complete?.source !== undefined && candidate.complete.source !== 'cron');
    switch (draft.option) {
      case 'holdFor':
        if (draft.group === true) result.groupHoldMs = draft.ms;
        else if (clause) clause.holdForMs = draft.ms;
        else result.options.push(draft);
        return;
      case 'for':
        if (clause && clause.complete === undefined && clause.comparison !== undefined && (clause.comparison.sustained === true || draft.ms < HOUR)) clause.holdForMs = draft.ms;
        else result.options.push({ option: 'expiresIn', ms: draft.ms });
        return;
      case 'every':
        if (clause?.complete?.source === 'llm') clause.everyMs = draft.ms;
        else {
          close();
          open(piece).complete = everyCondition(draft.ms);
          close();
        }
        return;
      case 'expiresIn':
        if (draft.looking === true && clause?.comparison?.change === true && clause.spans.length === 0) clause.spans.push({ kind: 'span', ms: draft.ms, how: 'window' });
        result.options.push(draft);
        return;
      case 'minConfidence':
        if (semantic) semantic.minConfidence = draft.value;
        else result.options.push(draft);
        return;
      case 'speed':
        if (semantic?.complete?.source === 'llm') semantic.speed = draft.speed;
        result.options.push(draft);
        return;
      default:
        result.options.push(draft);
    }
  }
}
