import type { ExecutionRecord } from '@eql/core';
import type { FastifyBaseLogger } from 'fastify';

/**
 * One log record for an execution's outcome: its query, execution, step and action, the trigger, the
 * attempts and how long it took; a failure as a warning with its code and message. The record holds no
 * parameter of the step (a URL, a token, a body): the stored error messages are already free of them.
 */
export function logExecution(log: FastifyBaseLogger, execution: ExecutionRecord): void {
  const started = Date.parse(execution.createdAt);
  const finished = execution.finishedAt === undefined ? Number.NaN : Date.parse(execution.finishedAt);
  const fields = {
    queryId: execution.queryId,
    executionId: execution.id,
    stepId: execution.stepId,
    action: execution.type,
    triggerIndex: execution.triggerIndex,
    attempts: execution.attempts,
    ...(Number.isFinite(finished - started) ? { durationMs: finished - started } : {}),
  };
  if (execution.status === 'failed') log.warn({ ...fields, error: { code: execution.error?.code ?? 'UNKNOWN', message: execution.error?.message ?? '' } }, `execution failed: ${execution.type} step ${execution.stepId}`);
  else log.info(fields, `execution succeeded: ${execution.type} step ${execution.stepId}`);
}
