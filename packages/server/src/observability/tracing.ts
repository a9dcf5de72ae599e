import { type Context, context, propagation, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { EngineSpan, EngineTracer, Exchange, HttpRequest, HttpResponse, HttpTransport, TracedStep, TriggerContext } from '@eql/core';

/** The tracer's name in every span's instrumentation scope. */
const SCOPE = '@eql/server';

/** Tracing of one process, when OTEL_EXPORTER_OTLP_ENDPOINT (or its traces variant) asks for it. */
export interface HostTracing {
  tracer: Tracer;
  /** Exports the spans still buffered and stops (at shutdown). */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing for this process when the environment asks for it (OTEL_EXPORTER_OTLP_ENDPOINT
 * or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, and OTEL_SDK_DISABLED not `true`); undefined otherwise: no SDK is
 * loaded into the trace API, and every span of the host is a no-op. Spans go over OTLP/HTTP (JSON) in
 * batches; the exporter reads the other standard variables itself (OTEL_EXPORTER_OTLP_HEADERS for a
 * collector's token, timeouts). The service is OTEL_SERVICE_NAME (default `eql-host`), the instance the
 * host's node id. Registers the provider globally, with the async-hooks context manager and W3C trace
 * context propagation.
 */
export async function startTracing(env: NodeJS.ProcessEnv, instanceId: string): Promise<HostTracing | undefined> {
  if (/^true$/i.test(env.OTEL_SDK_DISABLED ?? '')) return undefined;
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  // The SDK is loaded only when tracing is on: every other start of the host (and of the CLI) skips it.
  const [{ BatchSpanProcessor, NodeTracerProvider }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'eql-host', 'service.instance.id': instanceId }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesEndpoint(env) }))],
  });
  provider.register();
  return { tracer: provider.getTracer(SCOPE), shutdown: () => provider.shutdown() };
}

/** Where the exporter sends spans: the traces endpoint as given, else `/v1/traces` under the general one (the OTLP convention). */
export function tracesEndpoint(env: NodeJS.ProcessEnv): string {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').replace(/\/+$/, '')}/v1/traces`;
}

/** An engine span over an OpenTelemetry span. */
function engineSpan(span: Span): EngineSpan {
  const spanContext = trace.setSpan(context.active(), span);
  return {
    within: (work) => context.with(spanContext, work),
    end: ({ status, code }) => {
      span.setAttribute('eql.outcome', status);
      if (status === 'failed') {
        if (code) span.setAttribute('eql.error.code', code);
        span.setStatus({ code: SpanStatusCode.ERROR, ...(code ? { message: code } : {}) });
      }
      span.end();
    },
  };
}

/**
 * The engine's spans as OpenTelemetry spans: `eql.tick` for an observation instant that fired queries
 * (opened at its first trigger, ended once the turn that fired them is over), `eql.trigger` under it for
 * each query it fired, `eql.step <action>` under the trigger for each step run, and under a step what its
 * executor sends (the traced HTTP transport's spans; a connected venue's calls). Attributes name the query,
 * trigger, step, execution and outcome, never a parameter of the action (a URL or a message may hold a secret).
 */
export function engineTracer(tracer: Tracer): EngineTracer {
  const ticks = new Map<number, { context: Context; span: Span; triggers: number }>();
  const tickOf = (firedAt: number) => {
    let tick = ticks.get(firedAt);
    if (!tick) {
      const span = tracer.startSpan('eql.tick', { root: true, attributes: { 'eql.observed_at': new Date(firedAt).toISOString() } });
      tick = { span, context: trace.setSpan(context.active(), span), triggers: 0 };
      ticks.set(firedAt, tick);
      const ended = tick;
      setImmediate(() => {
        ticks.delete(firedAt);
        ended.span.setAttribute('eql.triggers', ended.triggers);
        ended.span.end();
      });
    }
    tick.triggers += 1;
    return tick;
  };
  return {
    trigger: (trigger: TriggerContext) => {
      const tick = tickOf(trigger.firedAt);
      const span = tracer.startSpan(
        'eql.trigger',
        { attributes: { 'eql.query.id': trigger.queryId, 'eql.trigger.index': trigger.triggerIndex, 'eql.trigger.fired_at': new Date(trigger.firedAt).toISOString() } },
        tick.context,
      );
      return engineSpan(span);
    },
    step: (parent: EngineSpan, step: TracedStep) => {
      const span = parent.within(() =>
        tracer.startSpan(`eql.step ${step.type}`, {
          attributes: { 'eql.step.id': step.stepId, 'eql.action.type': step.type, 'eql.execution.id': step.executionId, 'eql.idempotency_key': step.idempotencyKey, 'eql.in_doubt': step.inDoubt },
        }),
      );
      return engineSpan(span);
    },
  };
}

/**
 * An HTTP transport whose requests (webhooks, bot messages) are client spans of the step that sends them,
 * with the W3C `traceparent` sent along so a receiver can join the trace. The span names the method, host
 * and port, never the path or query (a bot token is in the path of a Telegram URL; a webhook URL may hold a
 * token), and records the status or the transport error's code.
 */
export function tracedTransport(inner: HttpTransport, tracer: Tracer): HttpTransport {
  return {
    send: async (request: HttpRequest): Promise<HttpResponse> => {
      const target = safeTarget(request.url);
      const span = tracer.startSpan(request.method, {
        kind: SpanKind.CLIENT,
        attributes: { 'http.request.method': request.method, 'server.address': target.host, 'server.port': target.port, 'url.scheme': target.scheme },
      });
      const headers = { ...request.headers };
      propagation.inject(trace.setSpan(context.active(), span), headers);
      try {
        const response = await context.with(trace.setSpan(context.active(), span), () => inner.send({ ...request, headers }));
        span.setAttribute('http.response.status_code', response.status);
        if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR, message: String(response.status) });
        return response;
      } catch (error) {
        span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  };
}

function safeTarget(url: string): { host: string; port: number; scheme: string } {
  try {
    const parsed = new URL(url);
    const scheme = parsed.protocol.replace(/:$/, '');
    return { host: parsed.hostname, port: parsed.port ? Number(parsed.port) : scheme === 'https' ? 443 : 80, scheme };
  } catch {
    return { host: 'invalid', port: 0, scheme: 'unknown' };
  }
}

/** The calls of a connected venue that reach it, as client spans `eql.venue <call>` naming the exchange. */
const VENUE_CALLS = new Set(['placeOrder', 'findOrderByClientId', 'lastPrice', 'availableBalanceUsd', 'isPerpetual', 'position']);

/** A connected venue whose calls are spans of the step that makes them. */
export function tracedExchange<T extends Exchange>(exchange: T, exchangeId: string, tracer: Tracer): T {
  return new Proxy(exchange, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !VENUE_CALLS.has(property) || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const span = tracer.startSpan(`eql.venue ${property}`, { kind: SpanKind.CLIENT, attributes: { 'eql.exchange': exchangeId } });
        const fail = (error: unknown) => {
          span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
          span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
          throw error;
        };
        try {
          const answer: unknown = context.with(trace.setSpan(context.active(), span), () => (value as (...given: unknown[]) => unknown).apply(target, args));
          if (answer instanceof Promise) {
            return answer.then((result: unknown) => {
              span.end();
              return result;
            }, fail);
          }
          span.end();
          return answer;
        } catch (error) {
          return fail(error);
        }
      };
    },
  });
}

/** The parent context of an incoming request: the caller's W3C `traceparent`, if it sent one. */
export function requestParent(headers: Record<string, string | string[] | undefined>): Context {
  return propagation.extract(context.active(), headers);
}
