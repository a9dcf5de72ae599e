import type { Delivery, Ledger } from './ledger.js';

/** How one kind of record of the cluster compares with the reference's. */
export interface Comparison {
  expected: number;
  got: number;
  /** In the reference, not in the cluster. */
  missing: number;
  /** In the cluster, not in the reference. */
  extra: number;
  /** Recorded more than once in the cluster (each repeat counted once). */
  twice: number;
  /** A few of each, to read. */
  examples: { missing: string[]; extra: string[]; twice: string[] };
}

/** The verdict of a scenario: what a test asserts and prints. */
export interface Verdict {
  scenario: string;
  /** Whether the cluster and the reference both passed the last tick before the comparison (false: it waited its bound and compared anyway). */
  settled: boolean;
  ticks: number;
  notifications: Comparison;
  executions: Comparison;
  /** Executions of the cluster not `succeeded`, by status. */
  unsucceeded: Record<string, number>;
  webhooks: Comparison;
  /** Queries whose stored trigger count went down between two polls: `title: a -> b`. */
  backwards: string[];
  /** Queries whose final trigger count differs from the reference's: `title: cluster vs reference`. */
  finalCounts: string[];
  /** Hosts that exited without being killed by the scenario, with the tail of their output. */
  exitedOnTheirOwn: string[];
  /** The longest stretch (seconds) with no partition owned by any host while a majority of hosts lived and PostgreSQL ran. */
  longestNoOwnerSeconds: number;
  /** The longest stretch (seconds) with some partition owned by no host under the same conditions (for reading; not judged). */
  longestSomeUnownedSeconds: number;
  /** What helps read a failure (not judged). */
  notes: string[];
}

/** The bound of the issue: never longer than this with no partition owned while a majority lives. */
export const MAX_NO_OWNER_SECONDS = 15;

function tally(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/** Compares the keys of the cluster with the reference's, as sets with repeats. */
export function compare(reference: readonly string[], cluster: readonly string[]): Comparison {
  const expected = tally(reference);
  const got = tally(cluster);
  const missing = [...expected.keys()].filter((key) => !got.has(key));
  const extra = [...got.keys()].filter((key) => !expected.has(key));
  const twice = [...got.entries()].filter(([key, count]) => count > Math.max(1, expected.get(key) ?? 0)).map(([key, count]) => `${key} x${count}`);
  return { expected: reference.length, got: cluster.length, missing: missing.length, extra: extra.length, twice: twice.length, examples: { missing: missing.slice(0, 5), extra: extra.slice(0, 5), twice: twice.slice(0, 5) } };
}

export function judge(input: {
  scenario: string;
  notes?: string[];
  settled: boolean;
  ticks: number;
  reference: Ledger;
  cluster: Ledger;
  referenceDeliveries: readonly Delivery[];
  clusterDeliveries: readonly Delivery[];
  backwards: string[];
  exitedOnTheirOwn: string[];
  longestNoOwnerSeconds: number;
  longestSomeUnownedSeconds: number;
}): Verdict {
  const unsucceeded: Record<string, number> = {};
  for (const execution of input.cluster.executions) if (execution.status !== 'succeeded') unsucceeded[execution.status] = (unsucceeded[execution.status] ?? 0) + 1;
  const finalCounts: string[] = [];
  for (const [title, count] of input.reference.triggerCounts) {
    const got = input.cluster.triggerCounts.get(title);
    if (got !== count) finalCounts.push(`${title}: ${got ?? 'absent'} vs ${count}`);
  }
  // Webhooks are judged as the receiver the docs describe takes them (examples/webhook-receiver.mjs):
  // each webhook-id once. A request resent with the same id after a kill -9 or a take-over is the
  // documented at-least-once delivery, effectively once (noted below); the same trigger delivered
  // under two ids is a trigger fired twice, and fails.
  const webhookKeys = (deliveries: readonly Delivery[]) => takenOncePerId(deliveries).map((delivery) => delivery.key);
  return {
    scenario: input.scenario,
    settled: input.settled,
    ticks: input.ticks,
    notifications: compare(input.reference.notifications, input.cluster.notifications),
    executions: compare(
      input.reference.executions.map((execution) => execution.key),
      input.cluster.executions.map((execution) => execution.key),
    ),
    unsucceeded,
    webhooks: compare(webhookKeys(input.referenceDeliveries), webhookKeys(input.clusterDeliveries)),
    backwards: input.backwards,
    finalCounts,
    exitedOnTheirOwn: input.exitedOnTheirOwn,
    longestNoOwnerSeconds: Math.round(input.longestNoOwnerSeconds * 10) / 10,
    longestSomeUnownedSeconds: Math.round(input.longestSomeUnownedSeconds * 10) / 10,
    notes: [...(input.notes ?? []), ...sameIdRepeats(input.clusterDeliveries)],
  };
}

/** The deliveries a receiver that takes each `webhook-id` once keeps: the first of each id. */
function takenOncePerId(deliveries: readonly Delivery[]): Delivery[] {
  const seen = new Set<string>();
  return deliveries.filter((delivery) => !seen.has(delivery.webhookId) && seen.add(delivery.webhookId) !== undefined);
}

/** Whether webhooks delivered twice carried the same `webhook-id` (a receiver that drops repeats by it sees one). */
function sameIdRepeats(deliveries: readonly Delivery[]): string[] {
  const ids = tally(deliveries.map((delivery) => delivery.webhookId));
  const repeated = [...ids.values()].filter((count) => count > 1).length;
  return repeated === 0 ? [] : [`${repeated} webhook-id(s) delivered more than once (the same id each time: a receiver deduplicating by webhook-id sees each once)`];
}

/** The verdict's failures, one line each (empty: the cluster kept its promises). */
export function failures(verdict: Verdict): string[] {
  const lines: string[] = [];
  if (!verdict.settled) lines.push('did not settle: the cluster or the reference never passed the last tick');
  for (const kind of ['notifications', 'executions', 'webhooks'] as const) {
    const comparison = verdict[kind];
    if (comparison.missing + comparison.extra + comparison.twice > 0) lines.push(`${kind}: ${comparison.missing} missing, ${comparison.extra} extra, ${comparison.twice} twice (of ${comparison.expected} expected, ${comparison.got} stored)`);
  }
  if (Object.keys(verdict.unsucceeded).length > 0) lines.push(`executions not succeeded: ${JSON.stringify(verdict.unsucceeded)}`);
  if (verdict.backwards.length > 0) lines.push(`trigger counts moved backwards for ${verdict.backwards.length} queries (${verdict.backwards.slice(0, 3).join('; ')})`);
  if (verdict.finalCounts.length > 0) lines.push(`final trigger counts differ for ${verdict.finalCounts.length} queries (${verdict.finalCounts.slice(0, 3).join('; ')})`);
  if (verdict.exitedOnTheirOwn.length > 0) lines.push(`${verdict.exitedOnTheirOwn.length} host exit(s) on their own`);
  if (verdict.longestNoOwnerSeconds > MAX_NO_OWNER_SECONDS) lines.push(`no partition owned for ${verdict.longestNoOwnerSeconds} s while a majority lived (bound ${MAX_NO_OWNER_SECONDS} s)`);
  return lines;
}

/** The verdict as a few readable lines (printed by every scenario, passed or failed). */
export function report(verdict: Verdict): string {
  const row = (name: string, comparison: Comparison) =>
    `  ${name.padEnd(14)} expected ${String(comparison.expected).padStart(5)}  stored ${String(comparison.got).padStart(5)}  missing ${comparison.missing}  extra ${comparison.extra}  twice ${comparison.twice}`;
  const problems = failures(verdict);
  const examples = (['notifications', 'executions', 'webhooks'] as const).flatMap((kind) =>
    (['missing', 'extra', 'twice'] as const).filter((what) => verdict[kind].examples[what].length > 0).map((what) => `    e.g. ${kind} ${what}: ${verdict[kind].examples[what].join(', ')}`),
  );
  return [
    `fault scenario "${verdict.scenario}": ${problems.length === 0 ? 'HELD' : 'BROKEN'} (${verdict.ticks} ticks${verdict.settled ? '' : ', NOT settled'})`,
    row('notifications', verdict.notifications),
    row('executions', verdict.executions),
    row('webhooks', verdict.webhooks),
    ...examples,
    `  longest with no partition owned (majority alive): ${verdict.longestNoOwnerSeconds} s; with some partition unowned: ${verdict.longestSomeUnownedSeconds} s`,
    ...problems.map((line) => `  FAIL ${line}`),
    ...verdict.notes.map((note) => `  note: ${note}`),
    ...verdict.exitedOnTheirOwn.map((exit) => `  exit: ${exit.slice(0, 600)}`),
  ].join('\n');
}
