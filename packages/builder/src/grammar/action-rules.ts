/**
 * Rules of notification and analysis actions: notify (with an optional message), webhook (a URL),
 * messenger_bot (Telegram chat id and bot token), and llm analysis (analyze, summarize, explain).
 */
import { article, freeText, symbol } from './common.js';
import { first, longest, map, opt, seq, token, words, type Pattern } from './combinators.js';
import type { ActionDraft, ActionPiece, Piece } from './pieces.js';
import { rule, rules, type PhraseRule } from './rule.js';
import { duration } from './values.js';

const action = (draft: ActionDraft): ActionPiece => ({ kind: 'action', action: draft });

const NOTIFY = [
  'notify', 'notify me', 'alert me', 'send me a notification', 'send a notification', 'send me an alert', 'send an alert', 'ping me', 'let me know',
  'tell me', 'warn me', 'remind me', 'push notification', 'a push notification', 'send me a push', 'a notification', 'notification', 'message me',
  'text me', 'buzz me', 'inform me', 'give me a heads up', 'heads up', 'notify us', 'alert us', 'send notification', 'get notified', 'be notified',
  'i get notified', 'i get a notification', 'get a notification', 'get an alert', 'an alert', 'in app notification', 'in-app notification', 'drop me a note',
];

const message = first(
  map(seq(words('saying', 'that says', 'with the message', 'with message', 'with text', 'with the text', 'message', 'and say', 'and tell me', ':', 'that reads', 'reading'), freeText), ([, text]) => text),
  token((t) => (t.kind === 'string' && t.text.trim() !== '' ? t.text.trim() : undefined)),
);

/** `notify me`, `alert me saying "BTC broke out"`, `let me know`, `remind me to check the funding`. */
const notify: Pattern<Piece[]> = first<Piece[]>(
  map(seq(words('remind me', 'ping me', 'notify me', 'alert me'), words('in'), duration, words('to', 'about', 'that', 'of'), freeText), ([, , ms, , text]) => [
    action({ type: 'notify', message: text }),
    { kind: 'span', ms, how: 'window' },
  ]),
  map(seq(words('remind me to', 'remind me about', 'remind me that', 'remind me of'), freeText), ([, text]) => [action({ type: 'notify', message: text })]),
  map(seq(words(...NOTIFY), opt(message)), ([, text]) => [action(text === undefined ? { type: 'notify' } : { type: 'notify', message: text })]),
);

const url = token((t) => (t.kind === 'url' ? t.text : undefined));
const SEND = words('send it to', 'send to', 'send a request to', 'send a post to', 'post it to', 'post to', 'post', 'call', 'hit', 'ping', 'trigger', 'fire', 'send', 'forward it to', 'forward to', 'deliver it to', 'deliver to', 'push to', 'push it to', 'notify', 'and send it to', 'also send it to', 'send the alert to', 'send alerts to', 'send the notification to');

/** `send it to my webhook https://…`, `webhook https://…`, `post to https://…`, or a URL alone. */
const webhook: Pattern<ActionPiece> = first(
  map(
    seq(opt(SEND), article, words('webhook', 'web hook', 'webhook url', 'webhook endpoint', 'endpoint', 'callback url', 'callback', 'http endpoint', 'server', 'api', 'url'), opt(words('at', 'to', ':', 'url', '=', 'is', 'on')), opt(url)),
    ([, , , , address]) => action(address === undefined ? { type: 'webhook' } : { type: 'webhook', url: address }),
  ),
  map(seq(opt(SEND), url), ([, address]) => action({ type: 'webhook', url: address })),
);

const chatRef = map(
  seq(
    opt(words('chat', 'chat id', 'chatid', 'chat_id', 'id', 'channel', 'group', 'to chat', 'to channel', 'to group', 'to', 'at', '=', ':')),
    first(
      token((t) => (t.kind === 'number' && t.unit === undefined && Number.isInteger(t.value) && !t.dollar ? t.text.replace(/^\+/, '') : undefined)),
      token((t) => (t.kind === 'handle' ? t.text : undefined)),
      token((t) => (t.kind === 'string' && /^(-?\d{3,20}|@\w{1,32})$/.test(t.text.trim()) ? t.text.trim() : undefined)),
    ),
  ),
  ([, chat]) => chat,
);
const botRef = map(
  seq(opt(words('bot token', 'token', 'with bot', 'via bot', 'using bot', 'bot', 'with token', 'using token', 'via', 'with the token', 'with bot token', 'using the bot', ':', '=')), token((t) => (t.kind === 'bottoken' ? t.text : undefined))),
  ([, secret]) => secret,
);

/** `send it to telegram chat -1001234567890`, `message my telegram channel @alerts via bot 123:ABC…`. */
const telegram: Pattern<ActionPiece> = map(
  seq(
    opt(longest(SEND, words('message', 'send a message to', 'send a telegram message to', 'post a message to', 'and message', 'send a message on', 'send me a message on', 'message me on'))),
    opt(seq(token((t) => (t.kind === 'string' && t.text.trim() !== '' ? t.text.trim() : undefined)), opt(words('to', 'on', 'via', 'in')))),
    article,
    words('telegram', 'tg', 'telegram bot', 'telegram chat', 'telegram channel', 'telegram group', 'messenger bot', 'messenger', 'my bot', 'the bot'),
    opt(words('bot', 'chat', 'channel', 'group', 'messenger')),
    opt(chatRef),
    opt(botRef),
    opt(chatRef),
  ),
  ([, quoted, , , , chatA, token, chatB]) => {
    const draft: ActionDraft = { type: 'messenger_bot' };
    if (quoted !== undefined) draft.message = quoted[0];
    const chat = chatA ?? chatB;
    if (chat !== undefined) draft.chatId = chat;
    if (token !== undefined) draft.botToken = token;
    return action(draft);
  },
);

const ANALYSIS: ReadonlyArray<readonly [string[], 'tokenAnalysis' | 'summary' | 'chat' | 'macro' | 'tokenIntro']> = [
  [['summarize', 'summarise', 'summarize it', 'summarise it', 'a summary', 'summary', 'summarize the news', 'give me a summary', 'write a summary', 'recap'], 'summary'],
  [['macro analysis', 'a macro analysis', 'macro view', 'macro outlook', 'macro summary'], 'macro'],
  [['token intro', 'an intro', 'intro', 'introduce', 'an introduction', 'introduction'], 'tokenIntro'],
  [['explain', 'explain it', 'explain why', 'explain the move', 'explain what happened', 'tell me why', 'an explanation', 'explanation'], 'chat'],
  [
    ['analyze', 'analyse', 'analysis', 'an analysis', 'ai analysis', 'an ai analysis', 'llm analysis', 'an llm analysis', 'analyze it', 'analyse it', 'analyze this', 'analyse this', 'analyze the move', 'analyse the move', 'deep dive', 'a deep dive', 'research', 'have an llm analyze', 'have an llm analyse', 'have ai analyze', 'have the ai analyze', 'get an analysis', 'give me an analysis', 'token analysis', 'a token analysis', 'run an analysis', 'run an llm analysis', 'ask an llm to analyze', 'ask the llm to analyze', 'ask ai to analyze', 'and analyze'],
    'tokenAnalysis',
  ],
];

const speedWord = opt(
  first(
    map(words('an expert', 'expert', 'a deep', 'deep', 'a detailed', 'detailed', 'a thorough', 'thorough', 'an in depth', 'in depth', 'in-depth', 'a full', 'full'), () => 'expert' as const),
    map(words('a quick', 'quick', 'a fast', 'fast', 'a brief', 'brief', 'a short', 'short'), () => 'fast' as const),
  ),
);

/** `analyze it`, `an expert analysis of BTC`, `summarize the news`, `explain why`. */
const analysis: Pattern<ActionPiece> = map(
  seq(
    opt(words('send me', 'send', 'give me', 'get me', 'write me', 'write', 'post', 'deliver', 'with', 'and', 'then')),
    speedWord,
    first(...ANALYSIS.map(([phrases, type]) => map(words(...phrases), () => type))),
    opt(seq(opt(words('of', 'on', 'about', 'for', 'the')), symbol)),
    opt(words('with an llm', 'with ai', 'with the llm', 'using an llm', 'using ai', 'using expert', 'with expert', 'with the expert model')),
  ),
  ([, speed, analysisType, subject, using]) => {
    const draft: ActionDraft = { type: 'llm', analysisType };
    const chosen = using !== undefined && using.includes('expert') ? 'expert' : speed;
    if (chosen !== undefined) draft.speed = chosen;
    if (subject !== undefined) draft.symbol = subject[1];
    return action(draft);
  },
);

/** `saying "ETH is flying"` apart from the notify phrase: the message of the notification. */
const saying: Pattern<ActionPiece> = map(
  seq(words('saying', 'that says', 'with the message', 'with message', 'with text', 'with the text', 'and say', 'reading', 'with the note', 'message it'), freeText),
  ([, text]) => action({ type: 'notify', message: text }),
);

/** The rules of this module. */
export const ACTION_RULES: PhraseRule[] = [
  rules('notify', notify, true),
  rule('notify message', saying, true),
  rule('webhook', webhook, true),
  rule('messenger bot', telegram, true),
  rule('llm analysis', analysis, true),
];
