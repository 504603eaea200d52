/**
 * OpenTelemetry tracing (docs/operations.md, "Tracing"): the built API (and, with REDIS_URL, the built worker)
 * export to a fake OTLP/HTTP collector on loopback, and one trace connects the client's request, the queue hop,
 * the edit's stages and the storage calls. Off unless configured: a disabled process exports nothing.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quadrantsImage } from './fixtures/images';
import { call, client, type ApiResponse } from './helpers/http';
import { startOtlpCollector, SpanKinds, type ExportedSpan, type OtlpCollector } from './helpers/otlp-collector';
import { freePort, startApiProcess, type RunningApi, type RunningProcess } from './helpers/process';
import { s3StorageBody, startS3Server, type S3TestServer } from './helpers/s3-server';
import { startWorker, waitForTask } from './helpers/tasks';
import { scratchEnvironment } from './helpers/test-app';

const IN = 'trace-in';
const OUT = 'trace-out';
/** The collector's credential, sent by the exporter from OTEL_EXPORTER_OTLP_HEADERS; never to appear elsewhere. */
const COLLECTOR_TOKEN = `collector-${randomBytes(12).toString('hex')}`;

let s3: S3TestServer;
let collector: OtlpCollector;
let api: RunningApi;
let worker: RunningProcess | undefined;
let env: Record<string, string | undefined>;
let cleanup: () => Promise<void>;
const scaled = () => env.REDIS_URL !== undefined;

/**
 * POSTs JSON with its body 100 ms after its head, as a slow client does: Fastify then reads the body in later
 * events of the socket, and the handler must still run in the request's trace.
 */
function postInTwoParts(url: string, headers: Record<string, string>, body: unknown): Promise<ApiResponse> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let answer = '';
      res.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: new Headers(), body: JSON.parse(answer), text: answer }),
      );
    });
    req.flushHeaders();
    setTimeout(() => req.end(text), 100);
  });
}

/** Polls the collector until `ready` holds for the spans exported so far (at most 10 s). */
async function spansUntil(ready: (spans: ExportedSpan[]) => boolean): Promise<ExportedSpan[]> {
  for (let i = 0; i < 100 && !ready(collector.spans); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  return collector.spans;
}

/** The one span of `trace` named `name` (fails when there is none or several). */
function only(spans: ExportedSpan[], name: string): ExportedSpan {
  const found = spans.filter((span) => span.name === name);
  expect(
    found.map((span) => span.name),
    `spans: ${spans.map((span) => span.name).join(', ')}`,
  ).toEqual([name]);
  return found[0];
}

/** Whether `span` descends from `ancestor` through its parents within `spans`. */
function descendsFrom(spans: ExportedSpan[], span: ExportedSpan, ancestor: ExportedSpan): boolean {
  const byId = new Map(spans.map((each) => [each.spanId, each]));
  for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) {
    if (parent.spanId === ancestor.spanId) return true;
  }
  return false;
}

beforeAll(async () => {
  [s3, collector] = await Promise.all([startS3Server([IN, OUT]), startOtlpCollector()]);
  const scratch = await scratchEnvironment({
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${COLLECTOR_TOKEN}`,
    // Spans leave 50 ms after they end, so that the test sees them without a shutdown.
    OTEL_BSP_SCHEDULE_DELAY: '50',
    LOG_FORMAT: 'json',
  });
  env = scratch.env;
  cleanup = scratch.cleanup;
  api = await startApiProcess(env);
  if (scaled()) worker = await startWorker({ ...env, PUBLIC_BASE_URL: api.url });
  await s3.client.send(
    new PutObjectCommand({ Bucket: IN, Key: 'red.jpg', Body: await quadrantsImage({ format: 'jpeg' }) }),
  );
  for (const [name, bucket] of [
    ['in', IN],
    ['out', OUT],
  ]) {
    const res = await client(api.url, env.ADMIN_API_KEY!).post('/v1/storage/storages', s3StorageBody(s3, name, bucket));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}, 90_000);

afterAll(async () => {
  await worker?.stop();
  await api?.stop();
  await Promise.all([s3?.stop(), collector?.close()]);
  await cleanup?.();
});

describe('tracing on (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('follows an async edit from the request through the queue to the storage in one trace', async () => {
    const clientTrace = randomBytes(16).toString('hex');
    const clientSpan = randomBytes(8).toString('hex');
    const res = await postInTwoParts(
      `${api.url}/v1/image/edit/async`,
      { authorization: `Bearer ${env.ADMIN_API_KEY}`, traceparent: `00-${clientTrace}-${clientSpan}-01` },
      {
        input: 'storage://in/red.jpg',
        operations: { resizing: { width: 32, fit: 'bounds' } },
        output: { destination: 'storage://out/traced/red.png', format: 'png' },
      },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const task = await waitForTask(api.url, env.ADMIN_API_KEY!, `/v1/image/edit/async/${res.body.data.id}`);
    expect(task.status).toBe('DONE');

    const inTrace = () => collector.spans.filter((span) => span.traceId === clientTrace);
    // Spans end in their own order across two processes: wait for the last of each kind.
    const awaited = ['process task-expand', 'process task-item', 'edit.write', 'storage.write'];
    await spansUntil(() => awaited.every((name) => inTrace().some((span) => span.name === name)));
    const spans = inTrace();

    // The client's traceparent is continued: the server span is its child, named by the route pattern.
    const server = only(spans, 'POST /v1/image/edit/async');
    expect(server).toMatchObject({ service: 'atelier-api', kind: SpanKinds.server, parentSpanId: clientSpan });
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/image/edit/async',
      'http.response.status_code': 200,
    });

    const logged = api
      .stdout()
      .split('\n')
      .filter((line) => line.includes('"request completed"') && line.includes(`"trace_id":"${clientTrace}"`));
    expect(logged.length, 'the completion line names the trace').toBe(1);

    // The queue hop: the API sends the listing job, which the worker (the API itself when embedded) processes.
    const workerService = scaled() ? 'atelier-worker' : 'atelier-api';
    const expand = only(spans, 'process task-expand');
    const item = only(spans, 'process task-item');
    expect(expand).toMatchObject({ service: workerService, kind: SpanKinds.consumer });
    expect(item).toMatchObject({ service: workerService, kind: SpanKinds.consumer });
    expect(item.attributes).toMatchObject({
      'messaging.system': scaled() ? 'bullmq' : 'in-process',
      'messaging.destination.name': 'image-edit',
      'atelier.task.id': Number(res.body.data.id),
      'atelier.task.item': 0,
      'atelier.job.attempt': 1,
    });
    if (scaled()) {
      const send = only(spans, 'send task-expand');
      expect(send).toMatchObject({ service: 'atelier-api', kind: SpanKinds.producer, parentSpanId: server.spanId });
      expect(expand.parentSpanId).toBe(send.spanId);
      expect(only(spans, 'send task-item').parentSpanId).toBe(expand.spanId);
      expect(item.attributes['messaging.message.id']).toBe(`task-${res.body.data.id}-item-0`);
    } else {
      expect(spans.filter((span) => span.name.startsWith('send '))).toEqual([]);
      expect(expand.parentSpanId).toBe(server.spanId);
    }
    expect(descendsFrom(spans, item, expand)).toBe(true);

    // The edit's stages, in the item's span, and the storage calls in theirs.
    for (const stage of ['edit.read', 'edit.probe', 'edit.pixel_wait', 'edit.pixels', 'edit.write']) {
      expect(only(spans, stage).parentSpanId, stage).toBe(item.spanId);
    }
    // the pass that writes the output's bytes, within the pixel work
    expect(only(spans, 'edit.encode').parentSpanId).toBe(only(spans, 'edit.pixels').spanId);
    expect(only(spans, 'edit.probe').attributes).toMatchObject({
      'atelier.image.format': 'jpeg',
      'atelier.image.width': 64,
      'atelier.image.height': 48,
    });
    const read = only(spans, 'storage.read');
    const write = only(spans, 'storage.write');
    expect(read.parentSpanId).toBe(only(spans, 'edit.read').spanId);
    expect(write.parentSpanId).toBe(only(spans, 'edit.write').spanId);
    expect(write).toMatchObject({ kind: SpanKinds.client, service: workerService });
    expect(write.attributes).toMatchObject({ 'atelier.storage.type': 's3', 'atelier.storage.operation': 'write' });
    const stored = await s3.client.send(new HeadObjectCommand({ Bucket: OUT, Key: 'traced/red.png' }));
    expect(write.attributes['atelier.storage.bytes']).toBe(stored.ContentLength);
    for (const span of spans) {
      expect(span.endNanos >= span.startNanos, span.name).toBe(true);
      expect(span.statusCode, span.name).not.toBe(2);
    }

    // Nothing secret nor a value of the request in any attribute: no key, bucket, object path or endpoint.
    const attributes = JSON.stringify(collector.spans.map((span) => span.attributes));
    for (const secret of [env.ADMIN_API_KEY!, s3.secretKey, s3.accessKey, COLLECTOR_TOKEN, s3.endpoint]) {
      expect(attributes).not.toContain(secret);
    }
    for (const value of [IN, OUT, 'red.jpg', 'traced/', 'storage://']) expect(attributes).not.toContain(value);
  });

  it('traces a batch: the folder listed in the listing job, each image in its own item job', async () => {
    for (const name of ['a.jpg', 'b.jpg']) {
      const body = await quadrantsImage({ format: 'jpeg', width: 32, height: 16 });
      await s3.client.send(new PutObjectCommand({ Bucket: IN, Key: `folder/${name}`, Body: body }));
    }
    const res = await client(api.url, env.ADMIN_API_KEY!).post('/v1/image/edit/batch', {
      input: 'storage://in/folder/',
      operations: { resizing: { width: 16 } },
      output: 'storage://out/batch/',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const task = await waitForTask(api.url, env.ADMIN_API_KEY!, `/v1/image/edit/batch/${res.body.data.id}`);
    expect(task.progress).toEqual({ total: 2, done: 2, failed: 0, retrying: 0 });

    const server = (span: ExportedSpan) => span.name === 'POST /v1/image/edit/batch';
    const traceOf = () => collector.spans.find(server)?.traceId;
    const inTrace = () => collector.spans.filter((span) => span.traceId === traceOf());
    const writes = () => inTrace().filter((span) => span.name === 'storage.write').length;
    await spansUntil(() => writes() === 2 && inTrace().filter((s) => s.name === 'process task-item').length === 2);
    const spans = inTrace();
    const expand = only(spans, 'process task-expand');
    const list = only(spans, 'storage.list');
    expect(list.parentSpanId).toBe(expand.spanId);
    expect(list.attributes).toMatchObject({ 'atelier.storage.type': 's3', 'atelier.storage.objects': 2 });
    const items = spans.filter((span) => span.name === 'process task-item');
    expect(items.map((item) => item.attributes['atelier.task.item']).sort()).toEqual([0, 1]);
    for (const item of items) expect(descendsFrom(spans, item, expand)).toBe(true);
    for (const write of spans.filter((span) => span.name === 'storage.write')) {
      expect(items.some((item) => descendsFrom(spans, write, item))).toBe(true);
    }
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain('folder/');
  });

  it('names spans by route pattern, starts a trace without a traceparent, and leaves health probes out', async () => {
    const created = await call(api.url, 'POST', '/v1/image/edit/async', {
      key: env.ADMIN_API_KEY,
      body: { input: 'storage://in/missing.jpg', output: { destination: 'storage://out/x.png' } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = String(created.body.data.id);
    expect((await call(api.url, 'GET', `/v1/image/edit/async/${id}`, { key: env.ADMIN_API_KEY })).status).toBe(200);
    expect((await call(api.url, 'GET', '/health/live')).status).toBe(200);
    const named = (span: ExportedSpan) => span.name === 'GET /v1/image/edit/async/:id';
    const spans = await spansUntil((all) => all.some(named));
    const get = spans.find(named)!;
    expect(get).toMatchObject({ parentSpanId: '', kind: SpanKinds.server });
    expect(get.attributes['http.route']).toBe('/v1/image/edit/async/:id');
    expect(spans.filter((span) => span.name.includes(`/${id}`) || span.name.includes('/health'))).toEqual([]);

    // The item fails for good (the object does not exist): its spans say so by the catalogue name only.
    await waitForTask(api.url, env.ADMIN_API_KEY!, `/v1/image/edit/async/${id}`);
    const failedRead = (span: ExportedSpan) =>
      span.name === 'storage.read' && span.attributes['error.type'] === 'STORAGE_OBJECT_NOT_FOUND';
    const failed = (await spansUntil((all) => all.some(failedRead))).find(failedRead);
    expect(failed?.statusCode).toBe(2);
    expect(JSON.stringify(collector.spans.map((span) => span.attributes))).not.toContain('missing.jpg');
  });

  it('sends the configured headers to the collector, which the processes never log', () => {
    expect(collector.refused).toEqual([]);
    expect(collector.requests.length).toBeGreaterThan(0);
    for (const headers of collector.requests) expect(headers.authorization).toBe(`Bearer ${COLLECTOR_TOKEN}`);
    expect(api.output()).toContain(`Tracing: spans of atelier-api to ${collector.endpoint}/v1/traces`);
    for (const output of [api.output(), worker?.output() ?? '']) expect(output).not.toContain(COLLECTOR_TOKEN);
  });
});

describe('tracing at shutdown', () => {
  it('sends the spans still waiting when the process stops (SIGTERM)', async () => {
    const late = await startOtlpCollector();
    const scratch = await scratchEnvironment({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${late.endpoint}/v1/traces`,
      // nothing leaves on the schedule during the test: only the flush at shutdown can send it
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      OTEL_SERVICE_NAME: 'atelier-api-eu',
    });
    const running = await startApiProcess(scratch.env);
    try {
      const res = await call(running.url, 'GET', '/v1/image/edit/async/999999', { key: scratch.env.ADMIN_API_KEY });
      expect(res.status).toBe(404);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(late.spans).toEqual([]);
      await running.stop();
      expect(await running.exited).toBe(0);
      const get = late.spans.find((span) => span.name === 'GET /v1/image/edit/async/:id');
      expect(get).toMatchObject({ service: 'atelier-api-eu', kind: SpanKinds.server, statusCode: 0 });
      expect(get?.attributes['http.response.status_code']).toBe(404);
    } finally {
      await running.stop();
      await late.close();
      await scratch.cleanup();
    }
  });
});

describe('tracing with its collector down', () => {
  it('serves as usual and still exits promptly with code 0, saying the last spans were lost', async () => {
    const closed = await freePort();
    const scratch = await scratchEnvironment({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closed}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: '500',
      // every span waits for the export at shutdown, which must fail
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    const running = await startApiProcess(scratch.env);
    try {
      for (let i = 0; i < 3; i++) {
        const res = await call(running.url, 'GET', '/v1/image/edit/async/999999', { key: scratch.env.ADMIN_API_KEY });
        expect(res.status).toBe(404);
      }
      const began = Date.now();
      await running.stop();
      expect(await running.exited).toBe(0);
      expect(Date.now() - began).toBeLessThan(5_000);
      expect(running.output()).toContain('the last spans could not be sent to the OTLP endpoint');
    } finally {
      await running.stop();
      await scratch.cleanup();
    }
  });
});

describe('tracing off', () => {
  it('exports nothing with no OTEL variable, where the SDKs would (localhost:4318), and serves as usual', async () => {
    const standard = await startOtlpCollector(4318);
    try {
      const plain = await scratchEnvironment();
      const off = await startApiProcess(plain.env);
      try {
        const res = await call(off.url, 'POST', '/v1/image/edit', {
          key: plain.env.ADMIN_API_KEY,
          body: { input: `${off.url}/samples/mug.jpg`, operations: { resizing: { width: 16 } } },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      } finally {
        await off.stop();
        await plain.cleanup();
      }
      expect(off.output()).not.toContain('Tracing:');
      expect(standard.requests).toEqual([]);
      // The same collector does hear a process told only OTEL_TRACES_EXPORTER=otlp: it would have heard the first.
      const told = await scratchEnvironment({ OTEL_TRACES_EXPORTER: 'otlp' });
      const on = await startApiProcess(told.env);
      await call(on.url, 'GET', '/v1/image/edit/async/1', { key: told.env.ADMIN_API_KEY });
      await on.stop();
      await told.cleanup();
      expect(standard.spans.map((span) => span.name)).toContain('GET /v1/image/edit/async/:id');
    } finally {
      await standard.close();
    }
  });

  for (const [label, variables] of [
    ['OTEL_SDK_DISABLED=true', { OTEL_SDK_DISABLED: 'true' }],
    ['OTEL_TRACES_EXPORTER=none', { OTEL_TRACES_EXPORTER: 'none' }],
  ] as const) {
    it(`exports nothing with ${label}, even with an endpoint, and serves as usual`, async () => {
      const idle = await startOtlpCollector();
      const scratch = await scratchEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: idle.endpoint, ...variables });
      const off = await startApiProcess({ ...scratch.env, OTEL_BSP_SCHEDULE_DELAY: '1' });
      try {
        const res = await call(off.url, 'POST', '/v1/image/edit', {
          key: scratch.env.ADMIN_API_KEY,
          body: { input: `${off.url}/samples/mug.jpg`, operations: { resizing: { width: 16 } } },
          headers: { traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01` },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.data.output.width).toBe(16);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(idle.requests).toEqual([]);
        expect(off.output()).not.toContain('Tracing:');
      } finally {
        await off.stop();
        await idle.close();
        await scratch.cleanup();
      }
      expect(idle.requests).toEqual([]);
    });
  }
});
