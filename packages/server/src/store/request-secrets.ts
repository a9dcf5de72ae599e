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

/** What a masked secret reads as in an answer; sent back in a draft update, it keeps the stored value while its destination is unchanged. */
export const SECRET_MASK = '[secret]';

/** The key of a sealed reference: `{"$sealed": "v1:<iv>:<tag>:<ciphertext>"}`. */
const SEALED = '$sealed';

/**
 * Where a secret sits: its holder object and key, its path inside the step (for matching across edits),
 * its JSON pointer in the request (for errors), whether answers mask it, and where it is sent (what must
 * not change for a masked value to keep the stored secret).
 */
type Slot = { holder: Record<string, unknown>; name: string; path: string; pointer: string; masked: boolean; destination: { field: 'url' | 'chatId'; value: string } };

/** A JSON pointer segment (RFC 6901). */
const segment = (name: string): string => name.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The secret slots of one action (and of its llm callback). Destinations: a webhook header goes to the
 * webhook's `url`; a bot token posts to its `chatId` (the bot API's base URL is the host's, the same for
 * every step); the stepId, the action type and whether the action is a callback are in the slot's path.
 */
function actionSlots(action: unknown, out: Slot[], prefix = '', pointer = ''): void {
  if (!isRecord(action) || !isRecord(action.params)) return;
  const params = action.params;
  const at = `${prefix}${String(action.type)}.`;
  const where = `${pointer}/params`;
  if (action.type === 'messenger_bot' && 'botToken' in params) {
    out.push({ holder: params, name: 'botToken', path: `${at}botToken`, pointer: `${where}/botToken`, masked: true, destination: { field: 'chatId', value: chatIdOf(params.chatId) } });
  }
  if (action.type === 'webhook') {
    const destination = { field: 'url', value: JSON.stringify(params.url ?? null) } as const;
    if ('url' in params) out.push({ holder: params, name: 'url', path: `${at}url`, pointer: `${where}/url`, masked: false, destination });
    if (isRecord(params.headers)) {
      for (const name of Object.keys(params.headers)) out.push({ holder: params.headers, name, path: `${at}headers.${name}`, pointer: `${where}/headers/${segment(name)}`, masked: true, destination });
    }
  }
  if (action.type === 'llm' && isRecord(params.callback)) actionSlots(params.callback.action, out, `${at}callback.`, `${where}/callback/action`);
}

/** A chat id as the bot API reads it: `100200300` and `"100200300"` name the same chat. */
const chatIdOf = (chatId: unknown): string => (typeof chatId === 'string' || typeof chatId === 'number' ? JSON.stringify(String(chatId)) : JSON.stringify(chatId ?? null));

/** The steps of a request (an empty list when it has none). */
function stepsOf(request: unknown): unknown[] {
  return isRecord(request) && isRecord(request.query) && Array.isArray(request.query.actions) ? request.query.actions : [];
}

/** The secret slots of one step (the `index`th of its request). */
function stepSlots(step: unknown, index: number): Slot[] {
  const slots: Slot[] = [];
  actionSlots(step, slots, '', `/query/actions/${index}`);
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

/** A masked secret that cannot keep the stored one: where it is and why. */
export interface SecretRequired {
  /** JSON pointer of the secret in the request, e.g. `/query/actions/0/params/headers/Authorization`. */
  path: string;
  message: string;
}

/** The request with its masks replaced by the stored secrets, or the masks that cannot be. */
export type RestoredSecrets = { ok: true; request: Record<string, unknown> } | { ok: false; required: SecretRequired[] };

/**
 * A draft read back shows its secrets as {@link SECRET_MASK}; an update that sends the mask back keeps
 * the stored secret, but only where it is sent to the same destination: the same place (stepId, action
 * type, top-level step or llm callback, header name) of a stored step whose webhook `url` (for a header)
 * or `chatId` (for a bot token) is unchanged. Otherwise whoever holds only the API key could send the
 * owner's credential to a URL of their own; so a mask elsewhere (a changed destination, a place with no
 * stored secret, a new draft) is refused and the secret must be sent again. The argument is not changed.
 */
export function restoreMaskedSecrets(next: Record<string, unknown>, previous: QueryRequest | undefined): RestoredSecrets {
  if (!slotsOf(next).some((slot) => slot.masked && slot.holder[slot.name] === SECRET_MASK)) return { ok: true, request: next };
  const stored = new Map<string, Slot>();
  stepsOf(previous).forEach((step, index) => {
    for (const slot of stepSlots(step, index)) if (slot.masked) stored.set(`${stepIdOf(step)}|${slot.path}`, slot);
  });
  const restored = copy(next);
  const required: SecretRequired[] = [];
  stepsOf(restored).forEach((step, index) => {
    for (const slot of stepSlots(step, index)) {
      if (!slot.masked || slot.holder[slot.name] !== SECRET_MASK) continue;
      const kept = stored.get(`${stepIdOf(step)}|${slot.path}`);
      if (kept === undefined) {
        required.push({ path: slot.pointer, message: `no secret is stored at this place of step ${JSON.stringify(stepIdOf(step))}: send the secret, not ${SECRET_MASK}` });
      } else if (kept.destination.field !== slot.destination.field || kept.destination.value !== slot.destination.value) {
        required.push({ path: slot.pointer, message: `its destination changed (the ${slot.destination.field === 'url' ? 'webhook url' : 'chatId'}): send the secret again to use it there` });
      } else {
        slot.holder[slot.name] = kept.holder[kept.name];
      }
    }
  });
  return required.length === 0 ? { ok: true, request: restored } : { ok: false, required };
}

const stepIdOf = (step: unknown): string => (isRecord(step) && typeof step.stepId === 'string' ? step.stepId : '');
