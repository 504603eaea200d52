import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/app-config';
import { ServiceException } from '../errors/service.exception';
import {
  activeTraceparent,
  contextOfTraceparent,
  errorType,
  recordSpan,
  SpanStatusCode,
  startSpan,
  withSpan,
} from './spans';
import { startTracing, stopTracing } from './tracing';

describe('span helpers with tracing off (the default)', () => {
  it('run the work as it is, with no span, no traceparent and the work’s own failure', async () => {
    expect(await withSpan('edit.read', {}, async (span) => (span === undefined ? 'plain' : 'span'))).toBe('plain');
    const failure = new ServiceException('FETCH_FAILED');
    await expect(withSpan('edit.read', {}, () => Promise.reject(failure))).rejects.toBe(failure);
    expect(startSpan('storage.list', {})).toBeUndefined();
    expect(() => recordSpan('edit.pixel_wait', 5)).not.toThrow();
    expect(activeTraceparent()).toBeUndefined();
  });
});

describe('span helpers with tracing on', () => {
  beforeAll(() => {
    // Nothing listens on port 9: exports fail quickly and quietly; the spans are read in the process.
    const config = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_EXPORTER_OTLP_TIMEOUT: '200',
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    expect(startTracing(config, 'atelier-test')).toMatch(
      /^Tracing: spans of atelier-test to http:\/\/127\.0\.0\.1:9\//,
    );
  });
  afterAll(async () => {
    // the collector is unreachable: the spans are lost, and stopping says so instead of throwing
    expect(await stopTracing()).toBe(false);
    expect(activeTraceparent()).toBeUndefined();
  });

  it('carries the active span as a traceparent, and continues one as the parent', async () => {
    const carried = await withSpan('send task-item', {}, async (span) => {
      const { traceId, spanId } = span!.spanContext();
      expect(activeTraceparent()).toBe(`00-${traceId}-${spanId}-01`);
      return activeTraceparent();
    });
    const continued = await withSpan('process task-item', { parent: contextOfTraceparent(carried) }, async (span) =>
      Promise.resolve(span as unknown as ReadableSpan),
    );
    expect(`00-${continued.spanContext().traceId}-${continued.parentSpanContext?.spanId}-01`).toBe(carried);
    const fresh = await withSpan('process task-item', { parent: contextOfTraceparent('00-zz-zz-01') }, async (span) =>
      Promise.resolve(span as unknown as ReadableSpan),
    );
    expect(fresh.parentSpanContext).toBeUndefined();
    expect(fresh.spanContext().traceId).not.toBe(continued.spanContext().traceId);
  });

  it('marks a failed span by the error type, and nests spans by the active context', async () => {
    let failed: ReadableSpan | undefined;
    let child: ReadableSpan | undefined;
    await expect(
      withSpan('edit.read', {}, async (span) => {
        failed = span as unknown as ReadableSpan;
        await withSpan('storage.read', {}, async (inner) => {
          child = inner as unknown as ReadableSpan;
        });
        throw new ServiceException('STORAGE_OBJECT_NOT_FOUND', 'Object "private/key.jpg" does not exist.');
      }),
    ).rejects.toThrow(ServiceException);
    expect(child?.parentSpanContext?.spanId).toBe(failed?.spanContext().spanId);
    expect(failed?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'STORAGE_OBJECT_NOT_FOUND' });
    expect(failed?.attributes).toEqual({ 'error.type': 'STORAGE_OBJECT_NOT_FOUND' });
    expect(failed?.ended).toBe(true);
  });
});

describe('errorType', () => {
  it('names a failure by its catalogue name, or class and plain code, never by its message', () => {
    expect(errorType(new ServiceException('STORAGE_OBJECT_NOT_FOUND', 'Object "secret/path.jpg" does not exist'))).toBe(
      'STORAGE_OBJECT_NOT_FOUND',
    );
    const reset = Object.assign(new Error('connect to http://user:pw@host failed'), { code: 'ECONNRESET' });
    expect(errorType(reset)).toBe('Error ECONNRESET');
    expect(errorType(new TypeError('value "sk_live_abc" is not a string'))).toBe('TypeError');
    expect(errorType('a string')).toBe('string');
  });
});
