import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes, MEDIA_TYPES } from '@app/common';
import { SAMPLE_IMAGES } from '@app/storage';
import { installConnectGuard, type ConnectGuard } from './helpers/connect-guard';
import { call, type ApiResponse } from './helpers/http';
import {
  committedOpenApi,
  exampleRequest,
  operationsInOrder,
  rebase,
  successStatus,
  type DocumentedOperation,
  type ExampleRequest,
} from './helpers/openapi-examples';
import { freePort, type RunningProcess } from './helpers/process';
import { FIRST_ADMIN_KEY_FILE } from '../apps/api/src/auth/bootstrap-key.service';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';

/**
 * Every request example of the committed openapi.json, sent as Swagger UI sends it to a fresh install (its own first
 * admin key, no other key, no storage, no task), in the order Swagger UI lists the operations. The document names the
 * default configuration's base URL; the service here runs elsewhere, so that URL is replaced by its own.
 */
const DOCUMENT = committedOpenApi();
const DEFAULT_BASE: string = DOCUMENT.servers[0].url;
const OPERATIONS = operationsInOrder(DOCUMENT);

let app: TestApp;
let base: string;
let key: string;
let worker: RunningProcess | undefined;
let guard: ConnectGuard;
/** The tmp_url of every result seen so far. */
const results: string[] = [];

/**
 * Starts the app as a first start does: no ADMIN_API_KEY, so it makes an admin key and keeps it in
 * DATA_DIR/first-admin-key.txt (a terminal would also show it; this process's output is not one).
 */
async function startFreshInstall(): Promise<{ app: TestApp; key: string }> {
  const port = await freePort();
  const started = await startTestApp({
    ADMIN_API_KEY: '',
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'warn',
  });
  const kept = readFileSync(join(started.config.dataDir, FIRST_ADMIN_KEY_FILE), 'utf8').trim();
  if (!/^sk_[A-Za-z0-9_-]{43}$/.test(kept)) throw new Error('the first start kept no admin key');
  return { app: started, key: kept };
}

beforeAll(async () => {
  ({ app, key } = await startFreshInstall());
  base = app.url;
  worker = await startWorkerFor(app);
  // The examples' images are the service's own samples, read from disk: nothing but this test's own requests to the
  // service may connect anywhere.
  guard = installConnectGuard(['127.0.0.1']);
}, 60_000);

afterAll(async () => {
  guard?.restore();
  await worker?.stop();
  await app?.close();
});

/** Sends an example as Swagger UI does: the key in `Authorization` where the operation is secured. */
async function send(operation: DocumentedOperation, request: ExampleRequest): Promise<ApiResponse> {
  const headers: Record<string, string> = operation.operation.security ? { authorization: `Bearer ${key}` } : {};
  if (!request.upload) {
    return call(base, operation.method.toUpperCase(), request.path, { body: request.json, headers });
  }
  const sample = await fetch(`${base}/samples/${request.upload.sample}`);
  expect(sample.status).toBe(200);
  const form = new FormData();
  form.set('file', new Blob([await sample.arrayBuffer()]), request.upload.sample);
  form.set('data', request.upload.data);
  const response = await fetch(`${base}${request.path}`, { method: 'POST', headers, body: form });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text), text };
}

/** Fetches a result's tmp_url as a client does and checks the image: its format, and its size when one was asked. */
async function expectResult(output: Record<string, any>, edit: Record<string, any>): Promise<void> {
  const response = await fetch(output.tmp_url);
  expect(response.status, output.tmp_url).toBe(200);
  const metadata = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
  expect([metadata.width, metadata.height]).toEqual([output.width, output.height]);
  expect(metadata.format).toBe(output.format === 'avif' ? 'heif' : output.format);
  const { width, height } = edit.operations?.resizing ?? {};
  if (Number.isInteger(width) && Number.isInteger(height))
    expect([output.width, output.height]).toEqual([width, height]);
  const format = typeof edit.output?.format === 'string' ? edit.output.format : edit.output?.format?.type;
  if (format) expect(output.format).toBe(format);
  results.push(output.tmp_url);
}

/**
 * What each example's answer must show beyond its status, by operation id. Ids and names the examples use are those a
 * fresh install hands out, so the answers are checked against them too.
 */
const CHECKS: Record<string, (response: ApiResponse, request: ExampleRequest) => Promise<void> | void> = {
  Health_live: ({ body }) => expect(body.data.status).toBe('ok'),
  Samples_download: ({ headers }, request) => {
    const name = request.path.split('/').pop()!;
    expect(headers.get('content-type')).toBe(MEDIA_TYPES[SAMPLE_IMAGES.find((s) => s.name === name)!.type].mime);
  },
  Keys_create: ({ body }) => {
    expect(body.data.key).toMatch(/^sk_/);
    expect(body.data.id).toBe(2);
  },
  Storage_create: async ({ body }, request) => {
    expect(body.data).toMatchObject({ id: 1, type: 'web_folder', name: (request.json as any).name });
    // The web folder reads the samples as an edit's input, from disk like their URLs.
    const edit = {
      input: `storage://${body.data.name}/plant.jpg`,
      operations: { resizing: { width: 120, height: 90 } },
    };
    const read = await call(base, 'POST', '/v1/image/edit', { key, body: edit });
    expect(read.status, read.text).toBe(200);
    await expectResult(read.body.data.output, edit);
  },
  Storage_update: ({ body }, request) => expect(body.data.name).toBe((request.json as any).name),
  Storage_remove: ({ body }) => expect(body.data).toBeNull(),
  ImageEdit_edit: ({ body }, request) => expectResult(body.data.output, request.json as object),
  ImageEdit_upload: ({ body }, request) => expectResult(body.data.output, JSON.parse(request.upload!.data)),
  Batch_createBatch: ({ body }) => expect(body.data).toMatchObject({ id: 1, status: 'ACCEPTED' }),
  Batch_createAsync: ({ body }) => expect(body.data).toMatchObject({ id: 2, status: 'ACCEPTED' }),
  Batch_getBatch: (_response, request) => expectTaskDone(request.path),
  Batch_getAsync: (_response, request) => expectTaskDone(request.path),
  WebhookSecret_rotate: ({ body }) => expect(body.data.secret).toMatch(/^whsec_/),
};

async function expectTaskDone(path: string): Promise<void> {
  const task = await waitForTask(base, key, path);
  expect(task.status, JSON.stringify(task.errors)).toBe('DONE');
  const inputs = [task.request.input].flat();
  expect(task.results).toHaveLength(inputs.length);
  for (const result of task.results) await expectResult(result.output_object, task.request);
}

/**
 * A result's file name is random by design, so the one example that names one cannot name a real file: it says where
 * to take the name from, and here the name of a result the earlier examples made is used.
 */
function derive(operation: DocumentedOperation, request: ExampleRequest): ExampleRequest {
  if (operation.id !== 'Temporary_download') return request;
  expect(results.length, 'an earlier example made a result').toBeGreaterThan(0);
  return { ...request, path: new URL(results[0]).pathname };
}

describe('the committed OpenAPI document', () => {
  it('lists the operations this test tries, each with an example for its body and required parameters', () => {
    expect(OPERATIONS.length).toBeGreaterThanOrEqual(21);
    for (const operation of OPERATIONS) expect(() => exampleRequest(operation), operation.id).not.toThrow();
    // A check of this test: a check for an operation the document no longer has would never run.
    const unknown = Object.keys(CHECKS).filter((id) => !OPERATIONS.some((operation) => operation.id === id));
    expect(unknown).toEqual([]);
  });

  it('documents every error status with a real error body from the catalogue (429 wrapped in `detail`)', () => {
    for (const { id, operation } of OPERATIONS) {
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        if (Number(status) < 400) continue;
        const examples = Object.entries<any>(response.content?.['application/json']?.examples ?? {});
        expect(examples.length, `${id} ${status}`).toBeGreaterThan(0);
        for (const [name, { value }] of examples) {
          const body = Number(status) === 429 ? value.detail : value;
          const entry = ErrorCodes[name as keyof typeof ErrorCodes];
          expect(entry, `${id} ${status} ${name}`).toBeDefined();
          expect(body).toMatchObject({ error_code: entry.code, error_type: entry.type, error_message: entry.message });
          expect(entry.status).toBe(Number(status));
        }
      }
    }
  });

  it('is served at /docs/openapi.json with the running service PUBLIC_BASE_URL in its examples', async () => {
    const served = await call(base, 'GET', '/docs/openapi.json');
    expect(served.status).toBe(200);
    expect(served.body).toEqual(rebase(DOCUMENT, DEFAULT_BASE, base));
    expect(served.text).not.toContain(DEFAULT_BASE);
  });
});

/**
 * Examples that answer a documented error in this sequence: a cancellation's task (an earlier example's) has ended
 * by then, as its example says; the error is checked to be the documented one.
 */
const ENDED_BY_THEN: Record<string, number> = { Batch_cancelBatch: 409, Batch_cancelAsync: 409, Tasks_cancel: 409 };

describe('every request example, tried on a fresh install in the order Swagger UI lists them', () => {
  for (const operation of OPERATIONS) {
    it(`${operation.method.toUpperCase()} ${operation.path} (${operation.id})`, async () => {
      const request = derive(operation, rebase(exampleRequest(operation), DEFAULT_BASE, base));
      const response = await send(operation, request);
      const ended = ENDED_BY_THEN[operation.id];
      if (ended !== undefined) {
        expect(response.status, response.text.slice(0, 500)).toBe(ended);
        expect(response.body.error_code).toBe(ErrorCodes.TASK_ENDED.code);
        return;
      }
      expect(response.status, response.text.slice(0, 500)).toBe(successStatus(operation.operation));
      const documented = Object.keys(operation.operation.responses[String(response.status)].content ?? {});
      if (documented.includes('application/json')) expect(response.body).toHaveProperty('data');
      else expect(documented).toContain(response.headers.get('content-type'));
      await CHECKS[operation.id]?.(response, request);
    });
  }

  it('made no connection but to loopback (the samples are read from disk; the address policy refuses loopback)', () => {
    expect(guard.refused).toEqual([]);
  });
});
