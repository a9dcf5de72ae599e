/**
 * Rules of query options and of the words that steer a conversation: expiry (`for 3 days`, `expires
 * in 12h`), hold-for (`for at least 15 minutes`), repeat and cooldown (`every time, at most 5 times,
 * with a 1h cooldown`), title, priority, speed, confidence, `every 4h`; and the cues of an
 * amendment (`also`, `instead`, `start over`, `remove the webhook`).
 */
import { article, freeText } from './common.js';
import { first, map, opt, seq, token, words, type Pattern } from './combinators.js';
import type { OptionDraft, OptionPiece, RemovePiece } from './pieces.js';
import { rule, type PhraseRule } from './rule.js';
import { amountOrPercent, duration, plainNumber, unitAlone } from './values.js';

const option = (draft: OptionDraft): OptionPiece => ({ kind: 'option', option: draft });
const span = first(duration, unitAlone);

const expiry: Pattern<OptionPiece> = map(
  seq(
    words(
      'expires in', 'expire in', 'expiring in', 'expires after', 'expire after', 'expiry', 'expiry of', 'expiration', 'expiration of', 'expires', 'expire',
      'valid for', 'keep it active for', 'keep it for', 'keep it running for', 'keep it alive for', 'active for', 'for the next', 'over the next',
      'during the next', 'in the next', 'within the next', 'lasting', 'run for', 'running for', 'watch for', 'monitor for', 'keep watching for', 'good for', 'live for',
      'stay active for', 'make it last', 'let it run for', 'for a period of', 'ttl', 'lifetime', 'lifetime of', 'duration', 'duration of', 'it expires in', 'it expires after', 'should expire in', 'to expire in',
    ),
    opt(words('the next', 'a', 'an', 'of', '=', ':')),
    span,
  ),
  ([phrase, , ms]) => option(/\bnext$/.test(phrase) ? { option: 'expiresIn', ms, looking: true } : { option: 'expiresIn', ms }),
);

const holdFor: Pattern<OptionPiece> = first(
  map(
    seq(words('for at least', 'for a minimum of', 'held for', 'holds for', 'hold for', 'holding for', 'for a full', 'sustained for', 'sustained over', 'continuously for', 'for over', 'for more than', 'consistently for', 'for a sustained', 'hold time of', 'hold time', 'hold it for', 'must hold for', 'stays there for', 'stays for', 'remains for', 'stay for', 'confirmed for'), span),
    ([, ms]) => option({ option: 'holdFor', ms }),
  ),
  map(seq(words('for'), duration, words('straight', 'in a row', 'continuously', 'consecutively', 'without interruption', 'or more', 'or longer', 'at least', 'solid')), ([, ms]) => option({ option: 'holdFor', ms })),
  map(
    seq(words('both', 'all', 'all of them', 'both of them', 'all conditions', 'both conditions', 'together', 'everything', 'all of these', 'all of this', 'all together'), opt(words('hold', 'holds', 'stay', 'stays', 'are true', 'remain', 'must hold', 'true', 'hold true', 'have held', 'held', 'hold together')), words('for', 'for at least'), duration),
    ([, , , ms]) => option({ option: 'holdFor', ms, group: true }),
  ),
);

const forSpan: Pattern<OptionPiece> = map(seq(words('for', 'for the', 'for a', 'for one'), duration), ([, ms]) => option({ option: 'for', ms }));
const forUnit: Pattern<OptionPiece> = map(seq(words('for a', 'for an', 'for one', 'for the'), unitAlone), ([, ms]) => option({ option: 'for', ms }));

const repeat: Pattern<OptionPiece> = map(
  words('every time', 'each time', 'repeatedly', 'repeat', 'recurring', 'keep alerting', 'keep notifying', 'keep alerting me', 'keep notifying me', 'more than once', 'not just once', 'again and again', 'every time it happens', 'each time it happens', 'multiple times', 'rearm', 're arm', 'repeating', 'on repeat', 'whenever', 'each and every time', 'every single time', 'keep firing', 'keep it going', 'each occurrence', 'every occurrence'),
  () => option({ option: 'repeat' }),
);

const cooldown: Pattern<OptionPiece> = first(
  map(seq(opt(words('with', 'with a', 'and a', 'a', 'and')), duration, words('cooldown', 'cool down', 'cooldown period', 'pause', 'gap', 'break', 'wait')), ([, ms]) => option({ option: 'cooldown', ms })),
  map(
    seq(words('cooldown', 'cool down', 'cooldown of', 'with a cooldown of', 'with cooldown', 'with a cooldown', 'cooldown period of', 'a cooldown of', 'pause of', 'and a cooldown of', 'with a pause of'), opt(words('of', '=', ':')), span, opt(words('between', 'between alerts', 'between triggers', 'between notifications', 'apart', 'in between', 'between them'))),
    ([, , ms]) => option({ option: 'cooldown', ms }),
  ),
  map(
    seq(words('at least', 'wait', 'waiting', 'wait at least'), span, words('between', 'between alerts', 'between triggers', 'between notifications', 'apart', 'in between', 'between them', 'before the next', 'before firing again', 'before the next alert')),
    ([, ms]) => option({ option: 'cooldown', ms }),
  ),
  map(seq(words('at most once', 'no more than once', 'max once', 'maximum once', 'once', 'not more than once', 'only once'), words('every', 'an', 'a', 'per', 'each', 'in'), span), ([, , ms]) => option({ option: 'cooldown', ms })),
);

const times = words('times', 'triggers', 'alerts', 'notifications', 'fires', 'trades', 'orders', 'time', 'runs');
const count = first(
  map(plainNumber, (value) => (Number.isInteger(value) && value >= 1 ? value : undefined)),
  map(words('twice', 'thrice'), (word) => (word === 'twice' ? 2 : 3)),
);

const maxTriggers: Pattern<OptionPiece> = first(
  map(seq(words('at most', 'up to', 'max', 'maximum', 'maximum of', 'a maximum of', 'no more than', 'not more than', 'limit', 'limit to', 'limit it to', 'cap at', 'capped at', 'only', 'max of', 'a max of', 'limited to'), count, opt(times)), ([, value]) => option({ option: 'maxTriggers', count: value })),
  map(seq(count, times, opt(words('max', 'maximum', 'at most', 'total', 'in total', 'tops'))), ([value]) => option({ option: 'maxTriggers', count: value })),
  map(words('twice', 'thrice'), (word) => option({ option: 'maxTriggers', count: word === 'twice' ? 2 : 3 })),
);

const title: Pattern<OptionPiece> = map(
  seq(words('title', 'titled', 'title it', 'call it', 'called', 'named', 'name it', 'label it', 'labelled', 'labeled', 'with title', 'with the title', 'and call it', 'and name it', 'name', 'label'), opt(words(':', '=', 'as', 'it')), freeText),
  ([, , text]) => option({ option: 'title', title: text.slice(0, 120) }),
);

const priority: Pattern<OptionPiece> = first(
  map(seq(opt(words('with', 'as', 'at', 'with a', 'as a', 'at a')), words('high', 'low', 'normal', 'medium', 'urgent', 'top', 'max'), words('priority', 'prio')), ([, level]) => option({ option: 'priority', priority: level === 'low' ? 'low' : level === 'normal' || level === 'medium' ? 'normal' : 'high' })),
  map(words('urgent', 'urgently', 'quietly', 'silently'), (word) => option({ option: 'priority', priority: word.startsWith('urgent') ? 'high' : 'low' })),
);

const speed: Pattern<OptionPiece> = map(
  seq(opt(words('use', 'using', 'with', 'in', 'at')), opt(words('the', 'an', 'a')), words('expert', 'adaptive', 'fast'), opt(words('model', 'mode', 'speed', 'llm', 'tier'))),
  ([, , level]) => option({ option: 'speed', speed: level as 'fast' | 'expert' | 'adaptive' }),
);

const confidence: Pattern<OptionPiece> = first(
  map(seq(opt(words('with', 'at')), opt(words('at least', 'a', 'a minimum', 'minimum', 'min')), amountOrPercent, words('confidence', 'certainty', 'sure', 'confident', 'match', 'probability')), ([, , value]) => option({ option: 'minConfidence', value: value.value })),
  map(seq(words('confidence', 'min confidence', 'minimum confidence', 'confidence of', 'confidence threshold', 'with confidence', 'with a confidence of', 'with confidence of', 'confidence above', 'confidence at least', 'with a minimum confidence of', 'threshold'), opt(words('of', '=', ':', 'at least')), amountOrPercent), ([, , value]) => option({ option: 'minConfidence', value: value.value })),
);

const every: Pattern<OptionPiece> = map(
  seq(words('every', 'each', 'once every', 'checked every', 'checking every', 'check every', 'judged every', 'evaluated every', 'recheck every', 'polled every', 'check it every', 'once per', 'once an', 'once a', 'per'), span),
  ([, ms]) => option({ option: 'every', ms }),
);

const REMOVABLE: ReadonlyArray<readonly [RemovePiece['types'][number], string[]]> = [
  ['webhook', ['webhook', 'webhooks', 'web hook', 'url', 'endpoint']],
  ['messenger_bot', ['telegram', 'tg', 'bot', 'telegram message', 'messenger bot']],
  ['notify', ['notification', 'notifications', 'notify', 'notify me', 'alert', 'push', 'notifying me', 'notifying']],
  ['llm', ['analysis', 'llm', 'llm analysis', 'summary', 'analyzing', 'ai analysis']],
  ['order', ['order', 'orders', 'trade', 'trades', 'buy', 'sell', 'the trade', 'trading', 'buy order', 'sell order']],
  ['conditions', ['conditions', 'condition', 'the rsi condition', 'rsi condition']],
];

const remove: Pattern<RemovePiece> = map(
  seq(
    words('remove', 'delete', 'drop', 'no', 'without', 'don\'t', 'do not', 'stop', 'skip', 'no more', 'get rid of', 'cancel', 'take out', 'leave out', 'forget', 'dont', 'no need to', 'no need for', 'not'),
    article,
    first(...REMOVABLE.map(([type, phrases]) => map(words(...phrases), () => type))),
  ),
  ([, , type]) => ({ kind: 'remove', types: [type] }),
);

/** The rules of this module. */
export const OPTION_RULES: PhraseRule[] = [
  rule('expiry', expiry, true),
  rule('hold for', holdFor, true),
  rule('for span', forSpan, true),
  rule('for unit', forUnit, true),
  rule('repeat', repeat, true),
  rule('cooldown', cooldown, true),
  rule('max triggers', maxTriggers, true),
  rule('title', title, true),
  rule('priority', priority, true),
  rule('speed', speed, true),
  rule('confidence', confidence, true),
  rule('every', every, true),
  rule('remove', remove, true),
  rule('also', map(words('also', 'too', 'as well', 'in addition', 'additionally', 'on top of that', 'add', 'and also', 'plus also', 'additionally also'), () => ({ kind: 'cue', cue: 'also' }) as const)),
  rule('instead', map(words('instead', 'instead of that', 'rather', 'rather than that', 'replace it with', 'switch to', 'change it to', 'swap it for', 'replace with'), () => ({ kind: 'cue', cue: 'instead' }) as const)),
  rule('edit', map(words('make it', 'use', 'change', 'change the', 'set the', 'update', 'update the', 'let it', 'modify', 'adjust', 'now', 'actually', 'make the', 'lower', 'raise', 'move', 'threshold', 'the threshold', 'change the threshold to', 'set the threshold to', 'move the threshold to', 'the level', 'the trigger', 'the trigger price', 'the target', 'lower it to', 'raise it to', 'move it to', 'change it to', 'set it to', 'to'), () => ({ kind: 'cue', cue: 'edit' }) as const)),
  rule('reset', map(words('start over', 'new query', 'start again', 'from scratch', 'forget that', 'forget it', 'reset', 'clear', 'scratch that', 'new alert', 'a new alert', 'another alert', 'another query', 'a separate alert', 'a new query', 'a different alert', 'something else'), () => ({ kind: 'cue', cue: 'reset' }) as const), true),
  rule('token', token((t) => (t.kind === 'bottoken' ? ({ kind: 'action', action: { type: 'messenger_bot', botToken: t.text } } as const) : undefined))),
];
