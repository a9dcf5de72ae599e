/**
 * The last touches of a composed query: actions in order (an llm analysis first, so the query keeps
 * LLM sessions; a lone analysis delivers itself by notification) with step ids, and the options
 * (expiry, repeat, a hold-for of the whole group), with the defaults of schedules said aloud.
 */
import { DAY, HOUR, formatDuration, parseDuration, walkConditions, type Action, type Query } from '@eql/core';
import type { Interpretation } from '../assemble/interpret.js';
import { durationText } from '../format.js';

const STEP_NAMES: Readonly<Record<string, string>> = {
  notify: 'notify', webhook: 'webhook', messenger_bot: 'telegram', llm: 'analysis', market_order: 'market', limit_order: 'limit',
};

/** Orders the actions (llm first), gives a lone analysis a notify callback, and numbers the step ids. */
export function finishActions(actions: readonly Action[]): [Action, ...Action[]] {
  const ordered = [...actions.filter((action) => action.type === 'llm'), ...actions.filter((action) => action.type !== 'llm')];
  const counts = new Map<string, number>();
  const finished = ordered.map((action) => {
    const copy = structuredClone(action) as Action & { params: Record<string, unknown> };
    if (copy.type === 'llm' && ordered.length === 1 && copy.params.callback === undefined) copy.params.callback = { action: { type: 'notify' } };
    if (copy.type === 'llm' && ordered.length > 1 && (copy.params.callback as { action?: { type?: string } } | undefined)?.action?.type === 'notify') delete copy.params.callback;
    const name = STEP_NAMES[copy.type] ?? 'step';
    const count = (counts.get(name) ?? 0) + 1;
    counts.set(name, count);
    copy.stepId = `${name}-${count}`;
    return copy;
  });
  return finished as unknown as [Action, ...Action[]];
}

/** A one-off schedule past the default lifetime: the query lives whole days past it (an hour at least). */
function coverOnce(query: Query, now: number, out: { notes: string[] }): void {
  if (query.expiresIn !== undefined) return;
  let latest = 0;
  walkConditions(query.conditions, '', (visit) => {
    const at = visit.kind === 'leaf' && visit.node.source === 'cron' && visit.node.method === 'once' ? Date.parse(String((visit.node.args as { at?: unknown } | undefined)?.at)) : NaN;
    if (Number.isFinite(at)) latest = Math.max(latest, at);
  });
  if (latest < now + 24 * HOUR) return;
  query.expiresIn = durationText(Math.ceil((latest - now + HOUR) / DAY) * DAY);
  out.notes.push(`the query lives ${query.expiresIn}, past its scheduled time`);
}

/** Sets expiry, repeat and a group hold-for from the options; schedules get a repeat policy and a longer life. */
export function applyOptions(query: Query, reading: Interpretation, out: { notes: string[] }, base: Query | undefined, now: number): void {
  let repeat = false;
  let cooldownMs: number | undefined;
  let maxTriggers: number | undefined;
  for (const option of reading.options) {
    switch (option.option) {
      case 'expiresIn':
        query.expiresIn = durationText(option.ms);
        break;
      case 'holdFor':
        query.conditions = { ...query.conditions, holdFor: durationText(option.ms) };
        break;
      case 'repeat':
        repeat = true;
        break;
      case 'cooldown':
        cooldownMs = option.ms;
        break;
      case 'maxTriggers':
        maxTriggers = option.count;
        break;
      default:
        break;
    }
  }
  coverOnce(query, now, out);
  const recurring = reading.recurringMs;
  if (recurring !== undefined && query.expiresIn === undefined && base?.expiresIn === undefined) {
    const lifetime = Math.min(30 * DAY, Math.max(24 * HOUR, 7 * recurring));
    query.expiresIn = durationText(lifetime);
    out.notes.push(`a recurring schedule lives ${query.expiresIn} unless you say otherwise (for example "for 30 days")`);
  }
  const wantsRepeat = repeat || cooldownMs !== undefined || maxTriggers !== undefined || recurring !== undefined;
  if (!wantsRepeat) return;
  const previous = query.repeat;
  let cooldown = cooldownMs === undefined ? previous?.cooldown : durationText(cooldownMs);
  if (cooldown === undefined) {
    cooldown = recurring === undefined ? '1h' : formatDuration(recurring);
    if (recurring === undefined) out.notes.push('it fires again at most once an hour (a 1h cooldown); say "with a 15m cooldown" to change it');
  }
  query.repeat = { cooldown };
  const max = maxTriggers ?? previous?.maxTriggers;
  if (max !== undefined) query.repeat.maxTriggers = max;
  const lifetime = parseDuration(query.expiresIn ?? '24h') ?? 24 * HOUR;
  if ((parseDuration(cooldown) ?? 0) >= lifetime) out.notes.push(`the cooldown (${cooldown}) is not shorter than the lifetime, so it can fire only once`);
}
