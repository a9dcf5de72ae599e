import type { Rule } from '../rule.js';
import { conditionNames } from './condition-names.js';
import { cronSchedules } from './cron.js';
import { durations } from './durations.js';
import { indicatorArgs } from './indicator-args.js';
import { intentRouting } from './intent-routing.js';
import { llmActions } from './llm-actions.js';
import { llmPeriod } from './llm-period.js';
import { messengerBot } from './messenger-bot.js';
import { numericThresholds } from './numeric-thresholds.js';
import { paymentMode } from './payment-mode.js';
import { redundantConditions } from './redundant-conditions.js';
import { semanticConfidence } from './semantic-confidence.js';
import { servedData } from './served-data.js';
import { uniqueStepIds } from './step-ids.js';
import { structureLimits } from './structure-limits.js';
import { templates } from './templates.js';
import { tradeActions } from './trade-actions.js';
import { usernames } from './usernames.js';
import { webhookUrls } from './webhook-urls.js';

/** The semantic rules, in the order their findings are listed. */
export const RULES: readonly Rule[] = [
  structureLimits,
  durations,
  intentRouting,
  usernames,
  llmPeriod,
  semanticConfidence,
  numericThresholds,
  indicatorArgs,
  servedData,
  redundantConditions,
  cronSchedules,
  paymentMode,
  uniqueStepIds,
  webhookUrls,
  messengerBot,
  conditionNames,
  templates,
  tradeActions,
  llmActions,
];
