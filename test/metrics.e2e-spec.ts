/**
 * Prometheus metrics (docs/operations.md, "Metrics"): off unless configured, behind a token on the API port or
 * on a listener of its own, and after known traffic the counters and histograms say what happened. The
 * registry is one per process, and several apps run in this file's process: every check compares two scrapes.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quadrantsImage } from './fixtures/images';
import { editImage } from './helpers/edit-client';
import { call, client } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { sendFrom } from './helpers/loopback-client';
import type { RunningProcess } from './helpers/process';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';
import { startWebhookReceiver, type WebhookReceiver } from './helpers/webhook-receiver';

const TOKEN = 'metrics-token-0123456789abcdef';

/** Samples of an exposition text: `name{labels} value` lines, comments left out. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
    .reduce((sum, s) => sum + s.value, 0);
}

/** A port on 127.0.0.1 that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function scrape(url: string, token?: string): Promise<Sample[]> {
  const response = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await response.text());
}

/** Scrapes until `ready` holds (at most 5 s), and returns the last scrape. */
async function scrapeUntil(url: string, ready: (samples: Sample[]) => boolean, token?: string): Promise<Sample[]> {
  let samples = await scrape(url, token);
  for (let i = 0; i < 50 && !ready(samples); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    samples = await scrape(url, token);
  }
  return samples;
}

describe('GET /metrics, not configured', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  it('is off by default (404), even with a key, and is not in the OpenAPI document', async () => {
    expect((await call(app.url, 'GET', '/metrics')).status).toBe(404);
    expect((await call(app.url, 'GET', '/metrics', { key: app.adminKey })).status).toBe(404);
    const document = await call(app.url, 'GET', '/docs/openapi.json');
    expect(document.status).toBe(200);
    expect(Object.keys(document.body.paths)).not.toContain('/metrics');
  });
});

describe('GET /metrics with METRICS_TOKEN and METRICS_PORT', () => {
  let app: TestApp;
  let images: ImageServer;
  let receiver: WebhookReceiver;
  let worker: RunningProcess | undefined;
  let metricsUrl: string;
  let workerMetricsUrl: string;

  beforeAll(async () => {
    images = await startImageServer();
    images.put('/photo.png', await quadrantsImage({ format: 'png', width: 64, height: 48 }));
    receiver = await startWebhookReceiver();
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', METRICS_TOKEN: TOKEN, METRICS_PORT: String(port) });
    const workerPort = await freePort();
    workerMetricsUrl = `http://127.0.0.1:${workerPort}/metrics`;
    worker = await startWorkerFor(app, { METRICS_PORT: String(workerPort), METRICS_TOKEN: '' });
  });
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await images?.stop();
    await receiver?.stop();
  });

  it('asks for the token on the API port: 401 without or with a wrong one, 200 with it', async () => {
    const missing = await call(app.url, 'GET', '/metrics');
    expect(missing.status).toBe(401);
    expect(missing.body.error_code).toBe('111');
    expect((await call(app.url, 'GET', '/metrics', { key: 'not-the-token' })).status).toBe(401);
    // an API key, even the admin's, is not the metrics token
    expect((await call(app.url, 'GET', '/metrics', { key: app.adminKey })).status).toBe(401);
    const samples = await scrape(`${app.url}/metrics`, TOKEN);
    expect(total(samples, 'atelier_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('asks for the token on its own port too (the cluster reaches it), and serves nothing else there', async () => {
    const missing = await fetch(metricsUrl);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(await missing.text()).not.toContain('atelier_');
    const wrong = await fetch(metricsUrl, { headers: { authorization: 'Bearer not-the-token-at-all' } });
    expect(wrong.status).toBe(401);
    const samples = await scrape(metricsUrl, TOKEN);
    expect(samples.some((s) => s.name === 'atelier_http_request_duration_seconds_count')).toBe(true);
    expect((await fetch(metricsUrl.replace('/metrics', '/v1/keys'))).status).toBe(404);
    // the probe of an orchestrator (which sends no secret): ready, and nothing else told
    const ready = await fetch(metricsUrl.replace('/metrics', '/health/ready'));
    expect(ready.status).toBe(200);
    expect(await ready.text()).toBe('ready\n');
  });

  it('counts known traffic: requests by route pattern and status, 429, 402, tasks, items and webhooks', async () => {
    const before = await scrape(metricsUrl, TOKEN);
    const workerBefore = worker ? await scrape(workerMetricsUrl) : before;
    const admin = client(app.url, app.adminKey);
    const body = { input: images.url('/photo.png'), output: { format: 'png' } };
    for (let i = 0; i < 3; i++) expect((await editImage(app, body)).status).toBe(200);
    expect((await editImage(app, { input: images.url('/photo.png'), output: { format: 'nope' } })).status).toBe(422);
    expect((await admin.get('/v1/no-such-route')).status).toBe(404);

    const limited = await admin.post('/v1/keys', { name: 'tiny', scopes: ['admin'], rate_limit: { per_minute: 2 } });
    const tiny = client(app.url, limited.body.data.key as string);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await tiny.get('/v1/keys')).status);
    expect(statuses).toEqual([200, 200, 429]);

    const quota = await admin.post('/v1/keys', { name: 'one', scopes: ['image_editing'], quota: 1 });
    const one = quota.body.data.key as string;
    expect((await editImage(app, body, one)).status).toBe(200);
    expect((await editImage(app, body, one)).status).toBe(402);

    const task = await admin.post('/v1/image/edit/async', { ...body, webhook_url: receiver.url('/done') });
    expect(task.status, task.text).toBe(200);
    const done = await waitForTask(app.url, app.adminKey, `/v1/image/edit/async/${task.body.data.id}`);
    expect(done.status).toBe('DONE');
    await receiver.received('/done', 1);

    const after = await scrape(metricsUrl, TOKEN);
    const grew = (name: string, labels: Record<string, string> = {}, samples = [before, after]) =>
      total(samples[1], name, labels) - total(samples[0], name, labels);
    const requests = (route: string, status: string, method = 'GET') =>
      grew('atelier_http_request_duration_seconds_count', { method, route, status });
    expect(requests('/v1/image/edit', '200', 'POST')).toBe(4);
    expect(requests('/v1/image/edit', '422', 'POST')).toBe(1);
    expect(requests('/v1/image/edit', '402', 'POST')).toBe(1);
    expect(requests('unknown', '404')).toBe(1);
    expect(requests('/v1/keys', '429')).toBe(1);
    expect(requests('/v1/keys', '200')).toBe(2);
    expect(requests('/v1/image/edit/async', '200', 'POST')).toBe(1);
    // polls are counted under the route pattern, never the raw URL
    expect(requests('/v1/image/edit/async/:id', '200')).toBeGreaterThanOrEqual(1);
    expect(after.some((s) => /\/\d+$/.test(s.labels.route ?? ''))).toBe(false);
    // the histogram's sum is in seconds: four small edits take well under a minute
    const seconds = grew('atelier_http_request_duration_seconds_sum', { route: '/v1/image/edit', status: '200' });
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(60);
    // every stage of each edit that ran: the four answered 200, and the async task's when the API ran it (the
    // 422 and the 402 were refused before any stage)
    for (const stage of ['read', 'probe', 'pixel_wait', 'pixels', 'encode', 'write']) {
      expect(grew('atelier_edit_stage_seconds_count', { stage }), stage).toBe(worker ? 4 : 5);
    }
    expect(grew('atelier_rate_limit_refusals_total')).toBe(1);
    expect(grew('atelier_quota_refusals_total')).toBe(1);
    expect(grew('atelier_tasks_created_total', { kind: 'async' })).toBe(1);
    // the edits went through the pixel gate and left it empty
    expect(after.some((s) => s.name === 'atelier_gate_in_flight' && s.labels.gate === 'pixels')).toBe(true);
    expect(total(after, 'atelier_gate_in_flight', { gate: 'pixels' })).toBe(0);
    expect(total(after, 'atelier_gate_queued', { gate: 'pixels' })).toBe(0);

    // scaled mode: the BullMQ queue's depth, read at the scrape (the task's jobs are done: none waits)
    if (worker) {
      for (const state of ['waiting', 'active', 'delayed', 'failed']) {
        expect(
          after.some((s) => s.name === 'atelier_queue_jobs' && s.labels.state === state),
          state,
        ).toBe(true);
      }
      expect(total(after, 'atelier_queue_jobs', { state: 'waiting' })).toBe(0);
      expect(total(after, 'atelier_queue_oldest_waiting_seconds')).toBe(0);
    } else {
      expect(after.some((s) => s.name === 'atelier_queue_jobs')).toBe(false);
    }
    // task items are counted where they run: the worker (scaled mode) or the API itself (embedded)
    // the delivery is counted once the receiver's answer is read, a moment after it arrived
    const delivered = (samples: Sample[]) => total(samples, 'atelier_webhook_deliveries_total');
    const workerAfter = await scrapeUntil(
      worker ? workerMetricsUrl : metricsUrl,
      (samples) => delivered(samples) > delivered(workerBefore),
      worker ? undefined : TOKEN,
    );
    expect(grew('atelier_task_items_total', { status: 'DONE' }, [workerBefore, workerAfter])).toBe(1);
    expect(grew('atelier_task_item_duration_seconds_count', { status: 'DONE' }, [workerBefore, workerAfter])).toBe(1);
    // the webhook is delivered where tasks run, once, answered 200 at the first attempt
    const workerSamples = [workerBefore, workerAfter];
    expect(grew('atelier_webhook_deliveries_total', { outcome: 'delivered' }, workerSamples)).toBe(1);
    expect(grew('atelier_webhook_deliveries_total', { outcome: 'retry' }, workerSamples)).toBe(0);
    expect(grew('atelier_webhook_delivery_seconds_count', { outcome: 'delivered' }, workerSamples)).toBe(1);
    // the task was ended where its last item ran, once
    expect(grew('atelier_tasks_ended_total', { status: 'DONE' }, workerSamples)).toBe(1);
    expect(grew('atelier_tasks_ended_total', { status: 'ERROR' }, workerSamples)).toBe(0);
  });
});

describe('GET /metrics under the failure budget', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ METRICS_TOKEN: TOKEN, AUTH_FAILURE_LIMIT_PER_MINUTE: '2' });
  });
  afterAll(() => app?.close());

  it('refuses guesses of the token past the budget (429 before comparing), and lets the token through once accepted', async () => {
    const scrapeFrom = (from: string, token: string) => sendFrom(app.url, { from, path: '/metrics', key: token });
    expect((await scrapeFrom('127.0.0.51', 'guess-number-one-0000')).status).toBe(401);
    expect((await scrapeFrom('127.0.0.51', 'guess-number-two-0000')).status).toBe(401);
    const refused = await scrapeFrom('127.0.0.51', 'guess-number-three-00');
    expect(refused.status).toBe(429);
    expect(refused.body.detail.error_code).toBe('2003');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // even the right token waits there while it has not been accepted: it is not compared either
    expect((await scrapeFrom('127.0.0.51', TOKEN)).status).toBe(429);
    // from the scraper's own address it is accepted; from then on the guesser's spent budget does not hold it
    expect((await scrapeFrom('127.0.0.52', TOKEN)).status).toBe(200);
    expect((await scrapeFrom('127.0.0.51', TOKEN)).status).toBe(200);
    // one guessed token is limited from every address
    expect((await scrapeFrom('127.0.0.53', 'guess-number-four-000')).status).toBe(401);
    expect((await scrapeFrom('127.0.0.54', 'guess-number-four-000')).status).toBe(401);
    expect((await scrapeFrom('127.0.0.55', 'guess-number-four-000')).status).toBe(429);
  });
});

describe('gate refusals', () => {
  let app: TestApp;
  let images: ImageServer;

  beforeAll(async () => {
    images = await startImageServer();
    // 1 MiB of inputs at once and no line: a second download declaring 1 MiB is refused while the first stalls
    app = await startTestApp({
      FETCH_ALLOW_HOSTS: '127.0.0.1',
      METRICS_TOKEN: TOKEN,
      EDIT_INPUT_BYTES: String(1024 * 1024),
      EDIT_KEY_SHARE: '100',
      EDIT_QUEUE_LIMIT: '0',
      FETCH_TIMEOUT_MS: '3000',
    });
  });
  afterAll(async () => {
    await app?.close();
    await images?.stop();
  });

  it('counts a 503 EDIT_BUSY of the inputs gate, and shows the held download in flight', async () => {
    // the head is more than the fetcher sniffs, so that it goes on to hold the declared size
    images.stall('/stalled.png', { declared: 1024 * 1024, head: Buffer.alloc(4096) });
    const before = await scrape(`${app.url}/metrics`, TOKEN);
    const body = (n: number) => ({ input: images.url(`/stalled.png?n=${n}`), output: { format: 'png' } });
    const first = editImage(app, body(1));
    // the first download holds its declared MiB once its headers came
    const deadline = Date.now() + 10_000;
    let held = 0;
    while (held !== 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      held = total(await scrape(`${app.url}/metrics`, TOKEN), 'atelier_gate_in_flight', { gate: 'inputs' });
    }
    expect(held).toBe(1);
    const refused = await editImage(app, body(2));
    expect(refused.status, refused.text).toBe(503);
    const after = await scrape(`${app.url}/metrics`, TOKEN);
    const refusals = (samples: typeof after) => total(samples, 'atelier_gate_refusals_total', { gate: 'inputs' });
    expect(refusals(after) - refusals(before)).toBe(1);
    expect(total(after, 'atelier_http_request_duration_seconds_count', { status: '503' })).toBeGreaterThanOrEqual(1);
    expect((await first).status).toBe(400);
    const released = await scrape(`${app.url}/metrics`, TOKEN);
    expect(total(released, 'atelier_gate_in_flight', { gate: 'inputs' })).toBe(0);
  }, 30_000);
});
