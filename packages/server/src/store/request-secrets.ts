import { isRecord, type QueryRequest } from '@eql/core';
import type { SecretBox } from '../secrets.js';

/**
 * Secrets inside query requests. At rest (the store) each secret value is replaced by a sealed
 * reference, `{"$sealed": "v1:…"}` (AES-256-GCM, {@link SecretBox}); the rest of the request stays
 * readable JSON. In answers of the API the secrets the spec calls secret are masked.
 *
 * Where the secrets are, in every step and in the callback action of an llm step:
 * - messenger_bot `params.botToken` (sealed at rest, masked in answers);
 * - webhook `params.headers`: every value, whatever the header's name (custom headers exist to carry
 *   credentials: `Authorization`, `X-Api-Key`, ...) (sealed at rest, masked in answers);
 * - webhook `params.url` (sealed at rest: capability URLs such as chat webhooks hold their token in
 *   the path; shown in answers, since the owner needs to see where deliveries go).
 */

/** What a masked secret reads as in an answer; sent back in a draft update, it keeps the stored value. */
export const SECRET_MASK = '[secret]';

/** The key of a sealed reference: `{"$sealed": "v1:<iv>:<tag>:<ciphertext>"}`. */
const SEALED = '$sealed';

/** Where a secret sits: its holder object and key, its path inside the step (for matching across edits), and whether answers mask it. */
type Slot = { holder: Record<string, unknown>; name: string; path: string; masked: boolean };

/** The secret slots of one action (and of its llm callback). */
function actionSlots(action: unknown, out: Slot[], prefix = ''): void {
  if (!isRecord(action) || !isRecord(action.params)) return;
  const params = action.params;
  const at = `${prefix}${String(action.type)}.`;
  if (action.type === 'messenger_bot' && 'botToken' in params) out.push({ holder: params, name: 'botToken', path: `${at}botToken`, masked: true });
  if (action.type === 'webhook') {
    if ('url' in params) out.push({ holder: params, name: 'url', path: `${at}url`, masked: false });
    if (isRecord(params.headers)) for (const name of Object.keys(params.headers)) out.push({ holder: params.headers, name, path: `${at}headers.${name}`, masked: true });
  }
  if (action.type === 'llm' && isRecord(params.callback)) actionSlots(params.callback.action, out, `${at}callback.`);
}

/** The steps of a request (an empty list when it has none). */
function stepsOf(request: unknown): unknown[] {
  return isRecord(request) && isRecord(request.query) && Array.isArray(request.query.actions) ? request.query.actions : [];
}

/** The secret slots of one step. */
function stepSlots(step: unknown): Slot[] {
  const slots: Slot[] = [];
  actionSlots(step, slots);
  return slots;
}

/** Every secret slot of a request (of its steps and their callbacks). */
function slotsOf(request: unknown): Slot[] {
  return stepsOf(request).flatMap(stepSlots);
}

const isSealedRef = (value: unknown): value is { $sealed: string } => isRecord(value) && typeof value[SEALED] === 'string' && Object.keys(value).length === 1;

/** A deep copy of a JSON request (requests are plain JSON). */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The request as stored: every secret string replaced by a sealed reference. The argument is not changed. */
export function sealRequestSecrets(request: QueryRequest, box: SecretBox): QueryRequest {
  const sealed = copy(request);
  for (const slot of slotsOf(sealed)) {
    const value = slot.holder[slot.name];
    if (typeof value === 'string' && value !== '') slot.holder[slot.name] = { [SEALED]: box.seal(value) };
  }
  return sealed;
}

/**
 * The request as run: sealed references opened. A reference that cannot be opened (another key, an
 * altered value) is left as it is: the step then fails for want of its secret, nothing throws.
 */
export function openRequestSecrets(request: QueryRequest, box: SecretBox): QueryRequest {
  const slots = slotsOf(request).filter((slot) => isSealedRef(slot.holder[slot.name]));
  if (slots.length === 0) return request;
  const opened = copy(request);
  for (const slot of slotsOf(opened)) {
    const value = slot.holder[slot.name];
    if (!isSealedRef(value)) continue;
    try {
      slot.holder[slot.name] = box.open(value[SEALED]);
    } catch {
      // Left sealed.
    }
  }
  return opened;
}

/** Whether a stored request still holds a secret in clear (what migration 6 seals). */
export function hasUnsealedSecrets(request: unknown): boolean {
  return slotsOf(request).some((slot) => {
    const value = slot.holder[slot.name];
    return typeof value === 'string' && value !== '';
  });
}

/** The request as the API shows it: bot tokens and webhook header values replaced by {@link SECRET_MASK}. */
export function maskRequestSecrets<T>(request: T): T {
  const masked = copy(request);
  for (const slot of slotsOf(masked)) if (slot.masked && slot.holder[slot.name] !== undefined) slot.holder[slot.name] = SECRET_MASK;
  return masked;
}

/**
 * A draft update that sends {@link SECRET_MASK} back (as read from the draft) keeps the stored secret:
 * a masked value takes the value of the same place (the same botToken, the same header) of the stored
 * step with the same stepId. The argument is not changed.
 */
export function restoreMaskedSecrets(next: Record<string, unknown>, previous: QueryRequest): Record<string, unknown> {
  if (!slotsOf(next).some((slot) => slot.holder[slot.name] === SECRET_MASK)) return next;
  const stored = new Map<string, unknown>();
  for (const step of stepsOf(previous)) for (const slot of stepSlots(step)) stored.set(`${stepIdOf(step)}|${slot.path}`, slot.holder[slot.name]);
  const restored = copy(next);
  for (const step of stepsOf(restored)) {
    for (const slot of stepSlots(step)) {
      const value = stored.get(`${stepIdOf(step)}|${slot.path}`);
      if (slot.holder[slot.name] === SECRET_MASK && value !== undefined) slot.holder[slot.name] = value;
    }
  }
  return restored;
}

const stepIdOf = (step: unknown): string => (isRecord(step) && typeof step.stepId === 'string' ? step.stepId : '');
