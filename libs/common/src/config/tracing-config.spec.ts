import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './app-config';

const ENDPOINT = 'http://collector:4318';

function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return '';
}

describe('tracing configuration (OTEL_*)', () => {
  it('is off without an endpoint or OTEL_TRACES_EXPORTER=otlp, whatever else is set', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }).tracing).toBeUndefined();
    // OTEL_* meant for other programs cannot stop the service while its tracing is off
    expect(loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_TRACES_SAMPLER: 'odd' }).tracing).toBeUndefined();
  });

  it('is on with an endpoint, with the documented defaults', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }).tracing).toEqual({
      endpoint: `${ENDPOINT}/v1/traces`,
      headers: {},
      serviceName: undefined,
      resourceAttributes: {},
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      exportTimeoutMs: 10_000,
      scheduleDelayMs: 5_000,
    });
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: `${ENDPOINT}/base/` }, `${ENDPOINT}/base/v1/traces`],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/custom` }, `${ENDPOINT}/custom`],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/t` },
      `${ENDPOINT}/t`,
    ],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, 'http://localhost:4318/v1/traces'],
    [{ OTEL_TRACES_EXPORTER: 'OTLP', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }, 'http://localhost:4318/v1/traces'],
  ])('sends to the endpoint the variables name: %j', (env, endpoint) => {
    expect(loadConfig(env).tracing?.endpoint).toBe(endpoint);
  });

  it.each([{ OTEL_SDK_DISABLED: 'true' }, { OTEL_TRACES_EXPORTER: 'none' }, { OTEL_TRACES_EXPORTER: 'NONE' }])(
    'is off with %j, even with an endpoint',
    (env) => {
      expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, ...env }).tracing).toBeUndefined();
    },
  );

  it('reads headers (percent-decoded, the traces list winning), the service, resource, sampler and timings', () => {
    const tracing = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-tenant = one',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=two',
      OTEL_SERVICE_NAME: 'images-eu',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod,service.namespace=media',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_EXPORTER_OTLP_TIMEOUT: '3000',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    }).tracing;
    expect(tracing).toMatchObject({
      headers: { authorization: 'Bearer abc', 'x-tenant': 'two' },
      serviceName: 'images-eu',
      resourceAttributes: { 'deployment.environment.name': 'prod', 'service.namespace': 'media' },
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      exportTimeoutMs: 3000,
      scheduleDelayMs: 200,
    });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
        OTEL_EXPORTER_OTLP_TIMEOUT: '3000',
        OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '4000',
        OTEL_TRACES_SAMPLER_ARG: '0.5',
      }).tracing,
    ).toMatchObject({ exportTimeoutMs: 4000, sampler: 'parentbased_always_on', samplerRatio: 1 });
  });

  it('refuses bad values, naming a bad header by position only (headers carry credentials)', () => {
    const message = problems({
      OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20ok,secret-token-without-key',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_TRACES_SAMPLER: 'sometimes',
      OTEL_BSP_SCHEDULE_DELAY: '0',
    });
    expect(message).toContain('OTEL_EXPORTER_OTLP_HEADERS: entry 2 is not key=value');
    expect(message).not.toContain('secret-token');
    expect(message).toContain('OTEL_EXPORTER_OTLP_PROTOCOL: must be http/protobuf');
    expect(message).toContain('OTEL_TRACES_SAMPLER: must be one of always_on');
    expect(message).toContain('OTEL_BSP_SCHEDULE_DELAY');
    expect(
      problems({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }),
    ).toContain('OTEL_TRACES_SAMPLER_ARG: must be a ratio from 0 to 1, got "2"');
    expect(problems({ OTEL_TRACES_EXPORTER: 'zipkin' })).toContain('OTEL_TRACES_EXPORTER: must be otlp or none');
    expect(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toContain(
      'OTEL_EXPORTER_OTLP_ENDPOINT: must be a URL with scheme http or https',
    );
  });
});
