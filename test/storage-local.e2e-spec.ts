import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quadrantsImage } from './fixtures/images';
import { editImage } from './helpers/edit-client';
import { client } from './helpers/http';
import type { RunningProcess } from './helpers/process';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * The `local` storage type over HTTP (libs/storage/src/types/local): a folder on the service's disk under the
 * roots LOCAL_STORAGE_ROOTS allows, as an edit's input and output and as a batch's folder input and output, in the
 * mode the suite runs in (embedded, or with the worker as its own process). Links that lead out are refused.
 */

let scratch: string;
let root: string;
let outside: string;
let app: TestApp;
let off: TestApp;
let worker: RunningProcess | undefined;

const api = (target = app) => client(target.url, target.adminKey);
const local = (name: string, path: string) => ({ name, type: 'local', parameters: { path } });

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'atelier-local-'));
  root = join(scratch, 'allowed');
  outside = join(scratch, 'elsewhere');
  for (const folder of ['catalogue/shoes/winter', 'results']) mkdirSync(join(root, folder), { recursive: true });
  mkdirSync(outside);
  const shoes = join(root, 'catalogue/shoes');
  writeFileSync(join(shoes, 'red.jpg'), await quadrantsImage({ format: 'jpeg', width: 200, height: 100 }));
  writeFileSync(join(shoes, 'blue.png'), await quadrantsImage({ format: 'png', width: 100, height: 200 }));
  writeFileSync(join(shoes, 'winter/boot.webp'), await quadrantsImage({ format: 'webp', width: 80, height: 40 }));
  writeFileSync(join(outside, 'secret.jpg'), await quadrantsImage({ format: 'jpeg', width: 40, height: 40 }));
  // links: one file and one folder that lead out of the storage's folder
  symlinkSync(join(outside, 'secret.jpg'), join(shoes, 'leak.jpg'));
  symlinkSync(outside, join(root, 'results/escape'));
  app = await startTestApp({ LOCAL_STORAGE_ROOTS: root });
  off = await startTestApp();
  worker = await startWorkerFor(app);
  for (const [name, path] of [
    ['catalogue', join(root, 'catalogue')],
    ['results', join(root, 'results')],
  ]) {
    const res = await api().post('/v1/storage/storages', local(name, path));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await off?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the local storage type', () => {
  it('is refused where the operator allows no folder, naming the setting; a path outside the roots is refused', async () => {
    const refused = await api(off).post('/v1/storage/storages', local('here', root));
    expect(refused.status).toBe(422);
    expect(refused.body.error_details.type[0]).toContain('LOCAL_STORAGE_ROOTS');
    const away = await api().post('/v1/storage/storages', local('away', outside));
    expect(away.status).toBe(422);
    expect(away.body.error_details['parameters.path'][0]).toContain('LOCAL_STORAGE_ROOTS');
    const relative = await api().post('/v1/storage/storages', local('relative', 'allowed/catalogue'));
    expect(relative.body.error_details['parameters.path']).toEqual(['path must be an absolute folder path']);
    const missing = await api().post('/v1/storage/storages', local('missing', join(root, 'nothing')));
    expect(missing.status).toBe(422);
    expect(missing.body.error_type).toBe('storage');
    expect(missing.body.error_message).toContain('does not exist');
    const listed = await api().get('/v1/storage/storages');
    expect(listed.body.data.find((storage: { name: string }) => storage.name === 'catalogue')).toMatchObject({
      type: 'local',
      parameters: { path: join(root, 'catalogue') },
    });
  });

  it('is an edit’s input and output: the result lands in the folder, whole', async () => {
    const res = await editImage(app, {
      input: 'storage://catalogue/shoes/red.jpg',
      operations: { resizing: { width: 100, height: 50 } },
      output: { format: 'png', destination: 'storage://results/edits/red.png' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const written = join(root, 'results/edits/red.png');
    const meta = await sharp(readFileSync(written)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 100, 50]);
    expect(readdirSync(join(root, 'results/edits'))).toEqual(['red.png']);
  });

  it('is a batch’s folder input and output, recursive, in both modes', async () => {
    const created = await api().post('/v1/image/edit/batch', {
      input: { source: 'storage://catalogue/shoes/', recursive: true },
      operations: { resizing: { width: 40, height: 40, fit: 'bounds' } },
      output: 'storage://results/batch/',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/batch/${created.body.data.id}`);
    expect(task.status, JSON.stringify(task.errors)).toBe('DONE');
    // the link that leads out is not listed: three images, not four
    expect(task.progress).toMatchObject({ total: 3, done: 3, failed: 0 });
    expect(readdirSync(join(root, 'results/batch')).sort()).toEqual(['blue.jpg', 'red.jpg', 'winter']);
    expect(readdirSync(join(root, 'results/batch/winter'))).toEqual(['boot.jpg']);
  });

  it('refuses a reference that leaves its folder through a link, reading or writing', async () => {
    const read = await editImage(app, { input: 'storage://catalogue/shoes/leak.jpg' });
    expect(read.status).toBe(422);
    expect(read.body.error_code).toBe('1306');
    expect(read.body.error_message).toContain('leads outside the storage');
    const write = await editImage(app, {
      input: 'storage://catalogue/shoes/red.jpg',
      output: { format: 'jpeg', destination: 'storage://results/escape/planted.jpg' },
    });
    expect(write.status).toBe(422);
    expect(write.body.error_code).toBe('1306');
    expect(existsSync(join(outside, 'planted.jpg'))).toBe(false);
    const climb = await editImage(app, { input: 'storage://catalogue/../elsewhere/secret.jpg' });
    expect(climb.status).toBe(422);
  });
});
