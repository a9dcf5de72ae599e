/**
 * @eql/core: the EQL language (schema, types, validator, cost estimate, lifecycle, signing rules).
 * Platform-neutral: no Node I/O, HTTP or editor APIs.
 *
 * @packageDocumentation
 */
export * from './generated/eql-types.js';
/** The EQL request JSON Schema (schemas/eql.schema.json), deeply frozen: what `validate` checks a request against. */
export { eqlSchema } from './generated/eql-schema.js';

export { validate, type ValidateOptions, type ValidationResult } from './validation/validate.js';
export type { ServedData } from './validation/served-data.js';
export type { ValidationMode, Rule, RuleContext } from './validation/rule.js';
export { DIAGNOSTIC_CODES, isDiagnosticCode, type DiagnosticCode, type DiagnosticCodeInfo, type DiagnosticLayer } from './validation/codes.js';
export { diagnosticText, DiagnosticSink, type Diagnostic, type DiagnosticFix, type JsonEdit, type Severity } from './validation/diagnostic.js';
export { checkRequestSchema } from './validation/schema-check.js';

export {
  estimateCost,
  estimateLlmCalls,
  creditsForCalls,
  lifetimeOf,
  triggersUpperBound,
  type CallsBySpeed,
  type CostEstimate,
  type EstimatedCost,
  type SimulationLlmCallsEstimate,
} from './cost/estimate.js';
export { CREDIT_COSTS, priceOfCredits, usdcAtomicUnitsOfCredits } from './cost/credits.js';
export { costBreakdown, type CostLine } from './cost/breakdown.js';

export {
  CREATED,
  QUERY_STATUSES,
  TERMINAL_STATUSES,
  isTerminal,
  transition,
  type LifecycleEvent,
  type LifecycleState,
  type QueryStatus,
  type Transition,
  type TransitionRefusal,
} from './lifecycle/query-lifecycle.js';

export {
  HMAC_MAX_DRIFT_SECONDS,
  constantTimeEqual,
  signRequest,
  signingPayload,
  verifyRequestSignature,
  type SignatureCheck,
  type SignatureFailure,
  type SignedRequest,
  type SigningParts,
} from './hmac/signing.js';
export {
  HMAC_ROUTE_TABLE,
  matchHmacRoute,
  signatureRequirement,
  storedLookupNeeded,
  type HmacContext,
  type HmacRoute,
  type HmacRouteEntry,
  type HmacRule,
  type SignatureRequirement,
  type StoredLookup,
} from './hmac/route-rules.js';

export {
  NOTIFICATION_ACTION_TYPES,
  TRADE_ACTION_TYPES,
  classifyRequestActions,
  isNotificationActionType,
  isTradeActionType,
  isTradeFlavouredAction,
  isTradeFlavouredQuery,
  type ActionClass,
} from './language/trade-flavour.js';
export { DAY, DURATION_PATTERN, HOUR, MINUTE, SECOND, WEEK, formatDuration, parseDuration } from './language/duration.js';
export { LIMITS } from './language/limits.js';
export { VALUE_RANGES, comparisonOutlook, valueRangeOf, type ValueRange } from './language/value-ranges.js';
export { checkPerpetualSymbol, type PerpetualCheck } from './language/symbols.js';
export { readAccountPost, readWorldEvent } from './language/intent.js';
export { allActions, collectConditions, leafConditions, walkConditions, groupDepth, type ActionVisit, type LeafVisit, type GroupVisit } from './language/query-walk.js';
export {
  CONDITION_FIELDS,
  MAX_RENDERED_CHARS,
  TRIGGER_FIELDS,
  conditionFacts,
  placeholdersOf,
  readTemplate,
  renderTemplate,
  templateView,
  type ConditionFacts,
  type TemplateEscape,
} from './language/message-template.js';
export { judgeHost, judgeWebhookUrl, addressRange, isPublicAddress, type HostVerdict, type UrlVerdict } from './net/host-policy.js';
export { escapePointerToken, joinPointer, parsePointer, readablePath, valueAtPointer, isRecord } from './util/json-pointer.js';
export { canonicalJson } from './util/canonical-json.js';
export { randomUuid } from './util/uuid.js';
export { formatIsoTime, parseInstant, parseIsoTime } from './util/instant.js';
export { REDACTED, MIN_REDACTED_LENGTH, ANYWHERE_REDACTED_LENGTH, secretRedactor, redactSecrets, actionSecretValues, querySecretValues } from './util/redact.js';
export * from './engine/index.js';
