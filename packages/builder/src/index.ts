/**
 * The AI query builder (`POST /v2/auto/chat`, `POST /x402/v2/auto/chat`): plain words to an EQL
 * query request, offline with a phrase grammar, or with a chat model that drafts, is validated and
 * repairs. See docs/builder.md.
 *
 * @packageDocumentation
 */
export { QueryBuilder, type BuilderReply, type BuilderTurn, type QueryBuilderOptions } from './query-builder.js';
export { emptyState, readState, type BuilderState } from './state.js';
export { interpret, messageTokens, type Interpretation, type InterpretContext } from './assemble/interpret.js';
export { MAX_MESSAGE_TOKENS, STEPS_PER_TOKEN, type ReadingWork } from './work.js';
export { offlineTurn, type OfflineOutcome, type OfflineTurn } from './offline.js';
export { extractRequest, type Extracted } from './model/extract.js';
export { systemPrompt } from './model/prompt.js';
export { draftWithModel, type ModelDraft, type ModelDraftInput } from './model/draft-loop.js';
export { PHRASE_RULES } from './grammar/rules.js';
