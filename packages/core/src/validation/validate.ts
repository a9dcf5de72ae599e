import { estimateCost, lifetimeOf, type EstimatedCost, type SimulationLlmCallsEstimate, type WalkedQuery } from '../cost/estimate.js';
import type { QueryRequest } from '../generated/eql-types.js';
import { LIMITS } from '../language/limits.js';
import { allActions, collectConditions, type ActionVisit, type GroupVisit, type LeafVisit } from '../language/query-walk.js';
import { isRecord } from '../util/json-pointer.js';
import { DiagnosticSink, diagnosticText, type Diagnostic } from './diagnostic.js';
import type { RuleContext, ValidationMode } from './rule.js';
import { RULES } from './rules/index.js';
import type { ServedData } from './served-data.js';
import { dispatchRules, runRules } from './run-rules.js';
import { checkRequestSchema } from './schema-check.js';
import { schemaDiagnostics } from './schema-errors.js';

/** Options of {@link validate}: the access model, the instant to validate at, and what the host serves. */
export interface ValidateOptions {
  /** `api-key` (default) or `payment`: the keyless model refuses trade actions and quotes no credits. */
  mode?: ValidationMode;
  /** The instant to validate at (cron instants are judged against it); defaults to the clock. */
  now?: number | Date;
  /**
   * What the host (or the recording) serves: with it, conditions on symbols or timeframes no feed
   * serves are errors, and so are series that cannot be defined before the query expires (a look-back
   * longer than the query lives without history, or than its life and the history give together).
   */
  served?: ServedData;
  /**
   * The host delivers webhooks to loopback and private hosts too (a self-hosted or test host that
   * allows them): such URLs are then not `webhook-private-host` errors. Default false.
   */
  allowPrivateWebhooks?: boolean;
}

/** Spec 2.4, plus `diagnostics` for tools. */
export interface ValidationResult {
  valid: boolean;
  errors: string[];
  warnings: string[];
  simulationLlmCallsEstimate?: SimulationLlmCallsEstimate;
  estimatedCost?: EstimatedCost;
  diagnostics: Diagnostic[];
}

/** Beyond this nesting the document is refused before any recursive check runs. */
const HOSTILE_DEPTH = 64;

const RULE_DISPATCH = dispatchRules(RULES);
/** The rules for a caller that does not say what it serves: those that need it would check nothing. */
const RULE_DISPATCH_UNSERVED = dispatchRules(RULES.filter((rule) => rule.needsServed !== true));
const NO_OPTIONS: ValidateOptions = Object.freeze({});

/**
 * Validates a query request (spec 2.1) in one pass: schema, then every semantic rule, then, when
 * nothing is wrong, the LLM call estimate and (API-key mode) the cost. Never throws, whatever JSON
 * value it is given.
 */
export function validate(request: unknown, options: ValidateOptions = NO_OPTIONS): ValidationResult {
  const mode = options.mode ?? 'api-key';
  const sink = new DiagnosticSink();
  let context: ValidationContext | undefined;
  try {
    context = check(request, mode, options, sink);
  } catch (cause) {
    sink.error('internal-error', '', `the validator failed unexpectedly: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
  return resultOf(request, mode, sink, context);
}

/** What the rules see (RuleContext); the clock is read only when a rule asks for `now`. */
class ValidationContext implements RuleContext {
  private instant: number | undefined;

  constructor(
    readonly request: Record<string, unknown>,
    readonly query: Record<string, unknown> | undefined,
    readonly mode: ValidationMode,
    now: ValidateOptions['now'],
    readonly served: ServedData | undefined,
    readonly allowPrivateWebhooks: boolean,
    readonly lifetimeMs: number,
    readonly groups: readonly GroupVisit[],
    readonly leaves: readonly LeafVisit[],
    readonly actions: readonly ActionVisit[],
    readonly sink: DiagnosticSink,
  ) {
    this.instant = now instanceof Date ? now.getTime() : now;
  }

  get now(): number {
    this.instant ??= Date.now();
    return this.instant;
  }
}

function check(request: unknown, mode: ValidationMode, options: ValidateOptions, sink: DiagnosticSink): ValidationContext | undefined {
  if (!isRecord(request)) {
    sink.error('not-an-object', '', 'the request must be a JSON object such as {"query": {"conditions": …, "actions": […]}}');
    return undefined;
  }
  const query = isRecord(request.query) ? request.query : undefined;
  const { groups, leaves, tooDeep } = collectConditions(query, '/query', HOSTILE_DEPTH);
  if (tooDeep) {
    sink.error('too-deep', '/query/conditions', `condition groups nest at most ${LIMITS.maxGroupDepth} deep`);
    return undefined;
  }
  const schemaErrors = checkRequestSchema(request);
  if (schemaErrors.length > 0) for (const diagnostic of schemaDiagnostics(schemaErrors, request)) sink.report(diagnostic);

  const actions = allActions(query);
  const lifetimeMs = lifetimeOf(query);
  const context = new ValidationContext(request, query, mode, options.now, options.served, options.allowPrivateWebhooks ?? false, lifetimeMs, groups, leaves, actions, sink);
  runRules(options.served === undefined ? RULE_DISPATCH_UNSERVED : RULE_DISPATCH, context);
  return context;
}

function resultOf(request: unknown, mode: ValidationMode, sink: DiagnosticSink, walked: WalkedQuery | undefined): ValidationResult {
  const diagnostics = sink.items;
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.severity === 'error') errors.push(diagnosticText(diagnostic));
    else if (diagnostic.severity === 'warning') warnings.push(diagnosticText(diagnostic));
  }
  if (errors.length > 0) return { valid: false, errors, warnings, diagnostics };
  const { simulationLlmCallsEstimate, estimatedCost } = estimateCost((request as QueryRequest).query, walked);
  return mode === 'api-key'
    ? { valid: true, errors, warnings, simulationLlmCallsEstimate, estimatedCost, diagnostics }
    : { valid: true, errors, warnings, simulationLlmCallsEstimate, diagnostics };
}
