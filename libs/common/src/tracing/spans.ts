import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { ServiceException } from '../errors/service.exception';
import { loggedError } from '../logging/logged-error';
import { activeTracer } from './tracing';

export { SpanKind, SpanStatusCode, type Attributes, type Context, type Span } from '@opentelemetry/api';

export interface SpanOptions {
  kind?: SpanKind;
  /** Only ids, names of kinds and counts: never a URL, a key, an object path or another value of a request. */
  attributes?: Attributes;
  /** The parent; default: the active span. */
  parent?: Context;
}

/**
 * Runs `work` inside a span named `name`, a child of the active span (or of `options.parent`), ended when the
 * work settles; a failure marks it as an error by {@link errorType}. With tracing off it only calls `work`.
 */
export async function withSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  const tracer = activeTracer();
  if (!tracer) return work(undefined);
  const spanOptions = { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes };
  return tracer.startActiveSpan(name, spanOptions, options.parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Starts a span that is not made active (the caller ends it); undefined with tracing off. */
export function startSpan(name: string, options: Omit<SpanOptions, 'parent'>): Span | undefined {
  return activeTracer()?.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes });
}

/** Records a span that has just ended after `durationMs` (a wait measured by someone else), under the active one. */
export function recordSpan(name: string, durationMs: number, attributes?: Attributes): void {
  const tracer = activeTracer();
  if (!tracer) return;
  const now = Date.now();
  tracer.startSpan(name, { attributes, startTime: now - durationMs }).end(now);
}

/** Adds attributes to the active span (what a stage learnt: an image's format and size). */
export function annotateActiveSpan(attributes: Attributes): void {
  if (activeTracer()) trace.getActiveSpan()?.setAttributes(attributes);
}

/**
 * A failure as a span shows it: the catalogue name of a ServiceException (`FETCH_FAILED`), else the error's
 * class and plain code (`Error ECONNRESET`); never its message, which can quote request values.
 */
export function errorType(error: unknown): string {
  if (error instanceof ServiceException) return error.codeName;
  const { type, code } = loggedError(error);
  return code ? `${type} ${code}` : type;
}

export function markFailed(span: Span, error: unknown): void {
  const type = errorType(error);
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/**
 * The active trace context as a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`), to carry across a queue
 * with a job; undefined when tracing is off or no span is active.
 */
export function activeTraceparent(): string | undefined {
  if (!activeTracer()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a carried `traceparent` continues (malformed or none: a new trace), for a job's span. */
export function contextOfTraceparent(traceparent: string | undefined): Context {
  return traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
}

/**
 * Starts the span of work that arrived from elsewhere (a server span of an HTTP request), continuing the W3C
 * `traceparent` of `carrier` (its headers) when it has a valid one; undefined with tracing off. The caller ends
 * the span and runs the work in `context`.
 */
export function startRemoteChildSpan(
  name: string,
  carrier: Record<string, string | string[] | undefined>,
  options: Omit<SpanOptions, 'parent'>,
): { span: Span; context: Context } | undefined {
  const tracer = activeTracer();
  if (!tracer) return undefined;
  const parent = propagation.extract(ROOT_CONTEXT, carrier);
  const span = tracer.startSpan(name, { kind: options.kind, attributes: options.attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `work` with `parent` active (the rest of a request after Fastify parsed its body, which loses it). */
export function runInContext<T>(parent: Context, work: () => T): T {
  return context.with(parent, work);
}
