import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { AppConfig, TracingConfig } from '../config/app-config';

/** The one tracer of the service's own spans: its instrumentation scope. */
const TRACER_NAME = 'atelier';

/** The process's provider while tracing is on; undefined (the default) makes every span helper a plain call. */
let provider: TracerProvider | undefined;
let tracer: Tracer | undefined;
let contextManager: AsyncLocalStorageContextManager | undefined;

/**
 * Starts tracing from the typed config (docs/operations.md, "Tracing"), first thing in a process, so that every
 * span of its life has a provider. Nothing happens when tracing is off. Everything the exporter needs is passed
 * to it from AppConfig.
 * @param defaultServiceName `service.name` unless OTEL_SERVICE_NAME names another.
 * @returns with tracing on, a line for the log saying where spans go (the endpoint without credentials or query).
 */
export function startTracing(config: AppConfig, defaultServiceName: string): string | undefined {
  const settings = config.tracing;
  if (!settings || provider) return undefined;
  const serviceName = settings.serviceName ?? defaultServiceName;
  const exporter = new OTLPTraceExporter({
    url: settings.endpoint,
    headers: settings.headers,
    timeoutMillis: settings.exportTimeoutMs,
  });
  provider = new TracerProvider({
    resource: resourceFromAttributes({
      ...settings.resourceAttributes,
      [ATTR_SERVICE_NAME]: serviceName,
    }),
    sampler: samplerOf(settings),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: settings.scheduleDelayMs,
        exportTimeoutMillis: settings.exportTimeoutMs,
      }),
    ],
  });
  contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  tracer = provider.getTracer(TRACER_NAME);
  const url = new URL(settings.endpoint);
  return `Tracing: spans of ${serviceName} to ${url.protocol}//${url.host}${url.pathname} (OTLP/HTTP, sampler ${settings.sampler})`;
}

/**
 * Exports the spans still buffered and stops tracing: the last step of a shutdown (TracingModule), so that the
 * spans of the work drained before it are sent. Bounded by the export timeout; a collector that does not answer
 * costs the spans, never the exit: it never throws.
 * @returns false when the last export failed (the spans are lost), true otherwise.
 */
export async function stopTracing(): Promise<boolean> {
  const stopping = provider;
  if (!stopping) return true;
  provider = undefined;
  tracer = undefined;
  try {
    await stopping.shutdown();
    return true;
  } catch {
    return false;
  } finally {
    trace.disable();
    propagation.disable();
    context.disable();
    contextManager = undefined;
  }
}

/** The service's tracer while tracing is on; undefined when off (callers then skip all span work). */
export function activeTracer(): Tracer | undefined {
  return tracer;
}

function samplerOf(settings: TracingConfig): Sampler {
  const ratio = new TraceIdRatioBasedSampler(settings.samplerRatio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
