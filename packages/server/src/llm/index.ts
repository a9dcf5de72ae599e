/** The host's LLM layer: chat models, the analysts (model-backed and offline) and their engine provider. */
export * from './chat-model.js';
export * from './analyst.js';
export * from './llm-config.js';
export { OpenAiChatModel, type OpenAiChatModelOptions } from './openai-chat-model.js';
