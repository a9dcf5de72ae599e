import type { Rule } from '../rule.js';

const BOT_TOKEN = /^[0-9]{5,}:[A-Za-z0-9_-]{30,}$/;
const CHAT_ID = /^(-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;

/** Bot messages (steps and llm callbacks): a token of the bot API's shape (warning: it may be a placeholder), a usable chat id. */
export const messengerBot: Rule = {
  name: 'messenger-bot',
  action: {
    types: ['messenger_bot'],
    check: (action, { sink }) => {
      const { params } = action;
      if (typeof params.botToken === 'string' && params.botToken !== '' && !BOT_TOKEN.test(params.botToken)) {
        sink.warning(
          'bot-token-format',
          `${action.pointer}/params/botToken`,
          'botToken does not look like a bot token (digits, a colon, then 30 or more characters); is it still a placeholder?',
        );
      }
      if (typeof params.chatId === 'string' && params.chatId !== '' && !CHAT_ID.test(params.chatId)) {
        sink.error(
          'invalid-chat-id',
          `${action.pointer}/params/chatId`,
          'chatId must be a numeric chat id such as "-1001234567890" or a channel name such as "@alerts"',
        );
      }
    },
  },
};
