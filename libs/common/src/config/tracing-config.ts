import type { Reader } from './config-reader';

/** The samplers of the OpenTelemetry specification's OTEL_TRACES_SAMPLER that the service offers. */
export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

/**
 * OpenTelemetry tracing (docs/operations.md, "Tracing"), read from the standard OTEL_* variables; absent: off.
 * Spans go to one OTLP/HTTP (protobuf) endpoint through a batch span processor.
 */
export interface TracingConfig {
  /** Full URL spans are posted to, e.g. `http://collector:4318/v1/traces`. */
  endpoint: string;
  /** Headers sent with every export (a collector's credentials): secret, never logged. */
  headers: Record<string, string>;
  /** `service.name`; undefined: the process's own (`atelier-api`, `atelier-worker`). */
  serviceName?: string;
  /** Further resource attributes (`deployment.environment.name=prod`). */
  resourceAttributes: Record<string, string>;
  sampler: TraceSampler;
  /** Ratio 0..1 of new traces kept by the `traceidratio` samplers. */
  samplerRatio: number;
  /** Longest one export may take, in milliseconds. */
  exportTimeoutMs: number;
  /** Longest an ended span waits before it is exported, in milliseconds. */
  scheduleDelayMs: number;
}

/** Where OTLP/HTTP sends traces when OTEL_TRACES_EXPORTER=otlp names no endpoint: a collector beside the process. */
export const DEFAULT_OTLP_TRACES_ENDPOINT = 'http://localhost:4318/v1/traces';

/**
 * Tracing is on when an OTLP endpoint is configured or OTEL_TRACES_EXPORTER is `otlp`, unless
 * OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER is `none`. Off by default: unlike the OpenTelemetry SDKs,
 * which export to localhost:4318 unasked, a service that sends nothing unless told to. The other variables
 * are checked only when tracing is on, so that OTEL_* meant for other programs cannot stop the service.
 */
export function readTracing(read: Reader): TracingConfig | undefined {
  const disabled = read.boolean('OTEL_SDK_DISABLED', false);
  const exporter = read.string('OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter !== undefined && exporter !== 'otlp' && exporter !== 'none') {
    read.problem('OTEL_TRACES_EXPORTER', `must be otlp or none, got "${exporter}"`);
  }
  const http = ['http:', 'https:'];
  const tracesEndpoint = read.url('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', http);
  const baseEndpoint = read.url('OTEL_EXPORTER_OTLP_ENDPOINT', http);
  const endpoint =
    tracesEndpoint ?? (baseEndpoint && `${baseEndpoint.replace(/\/+$/, '')}/v1/traces`) ?? DEFAULT_OTLP_TRACES_ENDPOINT;
  const configured = tracesEndpoint !== undefined || baseEndpoint !== undefined || exporter === 'otlp';
  if (disabled || exporter === 'none' || !configured) return undefined;

  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = read.string(name);
    if (protocol !== undefined && protocol !== 'http/protobuf') {
      read.problem(name, `must be http/protobuf (the only OTLP protocol Atelier sends), got "${protocol}"`);
    }
  }
  const sampler = read.oneOf('OTEL_TRACES_SAMPLER', TRACE_SAMPLERS, 'parentbased_always_on');
  const timeout = read.integer('OTEL_EXPORTER_OTLP_TIMEOUT', 10_000, 1, 600_000);
  return {
    endpoint,
    headers: {
      ...keyValuePairs(read, 'OTEL_EXPORTER_OTLP_HEADERS', true),
      ...keyValuePairs(read, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', true),
    },
    serviceName: read.string('OTEL_SERVICE_NAME'),
    resourceAttributes: keyValuePairs(read, 'OTEL_RESOURCE_ATTRIBUTES', false),
    sampler,
    samplerRatio: sampler.endsWith('traceidratio') ? ratio(read, 'OTEL_TRACES_SAMPLER_ARG') : 1,
    exportTimeoutMs: read.integer('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', timeout, 1, 600_000),
    scheduleDelayMs: read.integer('OTEL_BSP_SCHEDULE_DELAY', 5_000, 1, 600_000),
  };
}

/**
 * The W3C Baggage-like list of the OTLP variables: `key=value` pairs separated by commas, values
 * percent-encoded. A secret list's problems name the entry by position, never by its text.
 */
function keyValuePairs(read: Reader, name: string, secret: boolean): Record<string, string> {
  const pairs: Record<string, string> = {};
  const entries = (read.string(name) ?? '').split(',').map((entry) => entry.trim());
  entries.forEach((entry, index) => {
    if (entry === '') return;
    const equals = entry.indexOf('=');
    const key = entry.slice(0, Math.max(equals, 0)).trim();
    let value: string | undefined;
    try {
      value = equals > 0 ? decodeURIComponent(entry.slice(equals + 1).trim()) : undefined;
    } catch {
      value = undefined;
    }
    if (value === undefined || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key)) {
      const shown = secret ? `entry ${index + 1}` : `"${entry}"`;
      read.problem(name, `${shown} is not key=value with a percent-encoded value`);
      return;
    }
    pairs[key] = value;
  });
  return pairs;
}

function ratio(read: Reader, name: string): number {
  const value = read.string(name);
  if (value === undefined) return 1;
  const number = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || number > 1) {
    read.problem(name, `must be a ratio from 0 to 1, got "${value}"`);
    return 1;
  }
  return number;
}
