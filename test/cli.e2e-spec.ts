import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quadrantsImage } from './fixtures/images';
import { client } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { freePort, startProcess, waitForOutput, type RunningProcess } from './helpers/process';
import { s3StorageBody, startS3Server, type S3TestServer } from './helpers/s3-server';
import { startWorkerFor } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * The `atelier` command line (docs/cli.md) over a real service: the BUILT shim bin/atelier.js runs as a child
 * process (`npm run build` first), talks to the test app over HTTP only, and is judged by its exit code, what it
 * printed and the files it wrote.
 */

const SHIM = resolve(__dirname, '../bin/atelier.js');
const BUCKET = 'cli-in';

let app: TestApp;
let images: ImageServer;
let s3: S3TestServer;
let worker: RunningProcess | undefined;
let scratch: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  output: string;
}

/** Runs `atelier ARGS` to its end (at most `timeoutMs`), with the test app's URL and the admin key unless overridden. */
async function atelier(
  args: string[],
  options: { env?: Record<string, string>; terminal?: boolean; timeoutMs?: number; input?: string } = {},
): Promise<Run> {
  const env = {
    ATELIER_URL: app.url,
    ATELIER_KEY: app.adminKey,
    ATELIER_CONFIG: join(scratch, 'no-config.json'),
    ...options.env,
  };
  const running = startProcess(SHIM, args, env, { terminal: options.terminal, input: options.input });
  const timer = setTimeout(() => running.child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  const code = await running.exited;
  clearTimeout(timer);
  const run = { code, stdout: running.stdout(), stderr: running.stderr(), output: running.output() };
  // The key in use is never printed, whatever happened.
  for (const key of [app.adminKey, env.ATELIER_KEY].filter(Boolean)) expect(run.output).not.toContain(key);
  return run;
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'atelier-cli-'));
  if (!existsSync(resolve(__dirname, '../dist/apps/cli/src/main.js'))) throw new Error('run `npm run build` first');
  s3 = await startS3Server([BUCKET]);
  images = await startImageServer();
  // The app's own URLs (tmp_url) are real ones, so that --download fetches them as a user's CLI would.
  const port = await freePort();
  app = await startTestApp({
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    TASK_CONCURRENCY: '1',
  });
  worker = await startWorkerFor(app);
  const created = await client(app.url, app.adminKey).post('/v1/storage/storages', s3StorageBody(s3, 'shelf', BUCKET));
  expect(created.status, created.text).toBe(200);
  for (let index = 0; index < 6; index++) {
    const body = await quadrantsImage({ format: 'png', width: 600 + index * 10, height: 400 });
    await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `shoes/shoe-${index}.png`, Body: body }));
  }
  images.put('/one.jpg', await quadrantsImage({ format: 'jpeg', width: 300, height: 200 }), 'image/jpeg');
  images.put('/two.png', await quadrantsImage({ format: 'png', width: 120, height: 240 }), 'image/png');
}, 90_000);

afterAll(async () => {
  await worker?.stop();
  await images?.stop(); // first: it ends the stalled download of the interrupted watch
  await app?.close();
  await s3?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('atelier: usage and connection', () => {
  it('documents the exit codes in --help and exits 2 without a command', async () => {
    const help = await atelier(['--help']);
    expect(help.code).toBe(0);
    for (const line of [
      '0  success',
      '2  usage error',
      '3  the API refused',
      '4  authentication',
      '5  a task ended in ERROR',
      '6  the service is unreachable',
    ]) {
      expect(help.stdout).toContain(line);
    }
    expect((await atelier([])).code).toBe(2);
  });

  it('exits 2 with what to do when the key is missing or a flag is unknown', async () => {
    const missing = await atelier(['storages', 'list'], { env: { ATELIER_KEY: '' } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/No API key: pipe it with --key-stdin, set ATELIER_KEY or run `atelier login/);
    const unknown = await atelier(['batch', 'storage://shelf/shoes/', '--colour', 'red']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--colour'");
  });

  it('exits 4 for a wrong key and 6 for a service that is not there', async () => {
    const wrong = await atelier(['storages', 'list'], { env: { ATELIER_KEY: 'sk_live_not_a_real_key_000000000000' } });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('The API key is unknown or revoked.');
    const port = await freePort();
    const away = await atelier(['storages', 'list', '--url', `http://127.0.0.1:${port}`]);
    expect(away.code).toBe(6);
    expect(away.stderr).toContain(`Cannot reach the service at http://127.0.0.1:${port}`);
  });

  it('login reads the key from standard input, writes the config file 0600 by a rename, and later commands use it', async () => {
    const config = join(scratch, 'config', 'atelier.json');
    // A file there already, readable by all, and a link beside it to a file that is not the CLI's.
    mkdirSync(join(scratch, 'config'), { recursive: true });
    writeFileSync(config, '{}\n', { mode: 0o644 });
    const before = statSync(config).ino;
    const elsewhere = join(scratch, 'not-the-config.txt');
    writeFileSync(elsewhere, 'untouched\n');
    const linked = join(scratch, 'config', 'linked.json');
    symlinkSync(elsewhere, linked);

    const login = await atelier(['login', '--url', app.url, '--key-stdin'], {
      env: { ATELIER_CONFIG: config, ATELIER_KEY: '' },
      input: `${app.adminKey}\n`,
    });
    expect(login.code, login.output).toBe(0);
    expect(login.stderr).not.toContain('--key is seen');
    expect(statSync(config).mode & 0o777).toBe(0o600);
    // a new file took the old one's place (the key was never written into the 0644 one)
    expect(statSync(config).ino).not.toBe(before);
    expect(readdirSync(join(scratch, 'config')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    const relinked = await atelier(['login', '--url', app.url, '--key-stdin'], {
      env: { ATELIER_CONFIG: linked },
      input: app.adminKey,
    });
    expect(relinked.code, relinked.output).toBe(0);
    expect(readFileSync(elsewhere, 'utf8')).toBe('untouched\n');
    expect(lstatSync(linked).isSymbolicLink()).toBe(false);
    expect(statSync(linked).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({ url: app.url, key: app.adminKey });
    const list = await atelier(['storages', 'list', '--json'], {
      env: { ATELIER_CONFIG: config, ATELIER_URL: '', ATELIER_KEY: '' },
    });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).map((storage: { name: string }) => storage.name)).toContain('shelf');
  });

  it('takes the key from standard input on every command; login asks for it on a terminal, without echo', async () => {
    const piped = await atelier(['storages', 'list', '--json', '--key-stdin'], {
      env: { ATELIER_KEY: '' },
      input: `${app.adminKey}\n`,
    });
    expect(piped.code, piped.output).toBe(0);
    expect(JSON.parse(piped.stdout).map((storage: { name: string }) => storage.name)).toContain('shelf');
    const both = await atelier(['storages', 'list', '--key', app.adminKey, '--key-stdin'], { input: app.adminKey });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('Give the key with --key or --key-stdin, not both.');
    const empty = await atelier(['storages', 'list', '--key-stdin'], { env: { ATELIER_KEY: '' }, input: '\n' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('standard input held no key');

    // No key, no terminal: say how to give it (never wait on a pipe nobody writes to).
    const config = join(scratch, 'prompted', 'config.json');
    const none = await atelier(['login', '--url', app.url], { env: { ATELIER_CONFIG: config } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('No key: pipe it with --key-stdin');
    expect(existsSync(config)).toBe(false);

    // A person at a terminal: asked, types the key (not shown), Enter.
    const running = startProcess(SHIM, ['login', '--url', app.url], { ATELIER_CONFIG: config }, { terminal: true });
    const timer = setTimeout(() => running.child.kill('SIGKILL'), 30_000);
    try {
      await waitForOutput(running, 'API key (not shown): ');
      running.child.stdin!.write(`${app.adminKey}\r`);
      expect(await running.exited, running.output()).toBe(0);
    } finally {
      clearTimeout(timer);
    }
    expect(running.output()).not.toContain(app.adminKey);
    expect(running.output()).toContain(`Saved the URL ${app.url} and the key to ${config} (mode 0600).`);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual({ url: app.url, key: app.adminKey });
    expect(statSync(config).mode & 0o777).toBe(0o600);
  });
});

describe('atelier storages create', () => {
  it('takes any type’s parameters as --param NAME=VALUE, a dotted name nesting, and never prints the secret', async () => {
    const created = await atelier([
      'storages',
      'create',
      '--name',
      'by-params',
      '--type',
      's3',
      '--param',
      `bucket=${BUCKET}`,
      '--param',
      `endpoint=${s3.endpoint}`,
      '--param',
      'path=shoes',
      '--param',
      `credentials.access_key=${s3.accessKey}`,
      '--param',
      `credentials.secret_access_key=${s3.secretKey}`,
      '--json',
    ]);
    expect(created.code, created.output).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      name: 'by-params',
      type: 's3',
      parameters: { bucket: BUCKET, path: 'shoes', credentials: { access_key: s3.accessKey } },
    });
    expect(created.output).not.toContain(s3.secretKey);
    // the service validates them as the type says: a member the type does not have is its 422, exit 3
    const unknown = await atelier([
      'storages',
      'create',
      '--name',
      'odd',
      '--type',
      'web_folder',
      '--param',
      'bucket=x',
    ]);
    expect(unknown.code, unknown.output).toBe(3);
    expect(unknown.stderr).toContain('parameters.bucket');
    const malformed = await atelier(['storages', 'create', '--name', 'odd', '--type', 's3', '--param', 'bucket']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('--param takes NAME=VALUE');
  });
});

describe('atelier edit', () => {
  it('edits a URL with shortcut flags and --download writes the real image', async () => {
    const file = join(scratch, 'small.webp');
    const run = await atelier([
      'edit',
      images.url('/one.jpg'),
      '--width',
      '150',
      '--height',
      'auto',
      '--format',
      'webp',
      '--quality',
      '60',
      '--download',
      file,
    ]);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toContain(`Edited ${images.url('/one.jpg')} (jpeg 300x200) -> webp 150x100`);
    const meta = await sharp(readFileSync(file)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 150, 100]);
  });

  it('uploads a local file with --operations from a file, downloading into a folder, --json on stdout', async () => {
    const input = join(scratch, 'local.png');
    writeFileSync(input, await quadrantsImage({ format: 'png', width: 200, height: 100 }));
    const ops = join(scratch, 'ops.json');
    writeFileSync(ops, JSON.stringify({ resizing: { width: '50%', height: 'auto' } }));
    const folder = join(scratch, 'downloads') + '/';
    const run = await atelier(['edit', input, '--operations', `@${ops}`, '--download', folder, '--json']);
    expect(run.code, run.output).toBe(0);
    const answer = JSON.parse(run.stdout);
    expect(answer.output).toMatchObject({ width: 100, height: 50, format: 'png' });
    expect(answer.saved_to.startsWith(folder)).toBe(true);
    const meta = await sharp(readFileSync(answer.saved_to)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 100, 50]);
  });

  it('exits 3 with the API message and the field for an invalid request', async () => {
    const run = await atelier(['edit', images.url('/one.jpg'), '--operations', '{"resizing": {"width": -5}}']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/atelier edit: .+/);
    expect(run.stderr).toMatch(/^ {2}operations\.resizing\.width: .+/m);
  });
});

describe('atelier batch and task', () => {
  it('draws a progress bar in place on a terminal until the folder batch is done, and exits 0', async () => {
    const run = await atelier(
      [
        'batch',
        'storage://shelf/shoes/',
        '--width',
        '300',
        '--format',
        'png',
        '--output',
        'storage://shelf/small/',
        '--watch',
        '--interval',
        '100',
      ],
      { terminal: true, timeoutMs: 60_000 },
    );
    expect(run.code, run.output).toBe(0);
    mkdirSync('/tmp/d-cli', { recursive: true });
    writeFileSync('/tmp/d-cli/batch-terminal.txt', run.output);
    // Every frame starts by returning to the line's start and clearing it; the last shows all six done.
    const frames = run.output.split('\r\x1b[2K').slice(1);
    expect(frames.length).toBeGreaterThanOrEqual(1);
    expect(frames.at(-1)).toMatch(/^Task \d+ DONE \[#+\] 6\/6 \(6 done, 0 failed\)/);
    for (const frame of frames)
      expect(frame).toMatch(/^Task \d+ (ACCEPTED|PROCESSING|DONE) \[[#-]+\] \d+\/\d+ \(\d+ done, \d+ failed/);
    expect(run.output).toMatch(/Task \d+ DONE: 6 of 6 done, 0 failed\./);
    const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'small/' }));
    expect((listed.Contents ?? []).map((object) => object.Key).sort()).toEqual(
      [0, 1, 2, 3, 4, 5].map((i) => `small/shoe-${i}.png`),
    );
  });

  it('with --watch --json prints only the final task as JSON, and exits 5 when an item failed', async () => {
    const run = await atelier(
      ['batch', images.url('/one.jpg'), images.url('/missing.jpg'), '--watch', '--json', '--interval', '100'],
      {
        timeoutMs: 60_000,
      },
    );
    expect(run.code, run.output).toBe(5);
    expect(run.stderr).toBe('');
    const task = JSON.parse(run.stdout);
    expect(task.status).toBe('ERROR');
    expect(task.progress).toMatchObject({ total: 2, done: 1, failed: 1 });
    expect(task.errors[0].input_object.input).toBe(images.url('/missing.jpg'));
  });

  it('starts a batch from a list file, then task watch without a terminal writes a line per change', async () => {
    const list = join(scratch, 'inputs.txt');
    writeFileSync(list, `# two images\n${images.url('/one.jpg')}\n\n${images.url('/two.png')}\n`);
    const started = await atelier(['batch', `@${list}`, '--height', '50', '--json']);
    expect(started.code, started.output).toBe(0);
    const task = JSON.parse(started.stdout);
    expect(task).toMatchObject({ status: 'ACCEPTED', progress: { total: 2 } });
    const watched = await atelier(['task', 'watch', String(task.id), '--interval', '100'], { timeoutMs: 60_000 });
    expect(watched.code, watched.output).toBe(0);
    expect(watched.stderr).not.toContain('\x1b');
    const lines = watched.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(new RegExp(`^Task ${task.id} DONE \\[#+\\] 2/2 \\(2 done, 0 failed\\)`));
    expect(new Set(lines).size).toBe(lines.length); // no line repeated: one per change
    expect(watched.stdout).toContain(`Task ${task.id} DONE: 2 of 2 done, 0 failed.`);
    const got = await atelier(['task', 'get', String(task.id), '--json']);
    expect(got.code).toBe(0);
    const final = JSON.parse(got.stdout);
    expect(final.results.map((r: any) => r.output_object.height)).toEqual([50, 50]);
  });

  it('exits 3 for a task that does not exist', async () => {
    const run = await atelier(['task', 'get', '999999']);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/not found/i);
  });
});

describe('atelier keys', () => {
  it('creates a key shown once, updates its scopes, revokes it; the revoked key then exits 4', async () => {
    const created = await atelier([
      'keys',
      'create',
      '--name',
      'cli test',
      '--scopes',
      'image_editing',
      '--quota',
      '50',
      '--json',
    ]);
    expect(created.code, created.output).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toMatchObject({ name: 'cli test', scopes: ['image_editing'], quota: 50, revoked: false });
    expect(key.key).toMatch(/^sk_/);
    // Without the storage scope, the key is refused there: 403, exit 4.
    const refused = await atelier(['storages', 'list'], { env: { ATELIER_KEY: key.key } });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/lacks the permission|scope/i);

    const updated = await atelier([
      'keys',
      'update',
      String(key.id),
      '--scopes',
      'image_editing,storage',
      '--quota',
      'unlimited',
    ]);
    expect(updated.code, updated.output).toBe(0);
    expect(updated.stdout).toContain(`Key ${key.id} "cli test"`);
    expect(updated.stdout).toContain('scopes image_editing, storage; quota unlimited');
    expect(updated.stdout).not.toContain(key.key);
    const allowed = await atelier(['storages', 'list', '--json'], { env: { ATELIER_KEY: key.key } });
    expect(allowed.code, allowed.output).toBe(0);

    const listed = await atelier(['keys', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`^${key.id} +cli test +${key.prefix}`, 'm'));
    expect(listed.stdout).not.toContain(key.key);

    const revoked = await atelier(['keys', 'revoke', String(key.id)]);
    expect(revoked.code, revoked.output).toBe(0);
    expect(revoked.stdout).toContain('Revoked.');
    const after = await atelier(['storages', 'list'], { env: { ATELIER_KEY: key.key } });
    expect(after.code).toBe(4);
  });
});

describe('atelier task list, results and usage', () => {
  it('lists the tasks newest first, filtered by status, and pages their results and errors', async () => {
    const failed = await atelier(
      ['batch', images.url('/two.png'), images.url('/gone.png'), '--watch', '--json', '--interval', '100'],
      {
        timeoutMs: 60_000,
      },
    );
    expect(failed.code, failed.output).toBe(5);
    const task = JSON.parse(failed.stdout);

    const errors = await atelier(['task', 'list', '--status', 'error', '--json']);
    expect(errors.code, errors.output).toBe(0);
    const page = JSON.parse(errors.stdout);
    expect(page.items[0]).toMatchObject({ id: task.id, kind: 'batch', status: 'ERROR' });
    expect(page.items.every((item: { status: string }) => item.status === 'ERROR')).toBe(true);
    const table = await atelier(['task', 'list', '--per-page', '1']);
    expect(table.stdout).toMatch(
      new RegExp(`^ID +KIND +STATUS +DONE +FAILED +CREATED\\n${task.id} +batch +ERROR +1/2 +1 `),
    );
    expect(table.stdout).toMatch(/page 1 of \d+ \(\d+ in all\)/);

    const results = await atelier(['task', 'results', String(task.id)]);
    expect(results.code, results.output).toBe(0);
    expect(results.stdout).toContain(images.url('/two.png'));
    const failures = await atelier(['task', 'results', String(task.id), '--errors', '--json']);
    expect(JSON.parse(failures.stdout)).toMatchObject({
      total: 1,
      items: [{ input_object: { input: images.url('/gone.png') } }],
    });

    const folder = join(scratch, 'results');
    const saved = await atelier(['task', 'results', String(task.id), '--download', folder]);
    expect(saved.code, saved.output).toBe(0);
    const path = saved.stdout.match(/^Saved (.+)$/m)?.[1] ?? '';
    const meta = await sharp(readFileSync(path)).metadata();
    expect([meta.width, meta.height]).toEqual([120, 240]);

    const usage = await atelier(['usage', '--json']);
    expect(usage.code, usage.output).toBe(0);
    const answer = JSON.parse(usage.stdout);
    expect(answer.recent_errors[0]).toMatchObject({ task_id: task.id, input: images.url('/gone.png') });
    const words = await atelier(['usage']);
    expect(words.stdout).toMatch(/^Key "ADMIN_API_KEY", scopes admin$/m);
    expect(words.stdout).toMatch(/Calls used: \d+; quota: unlimited; left: unlimited/);
    expect(words.stdout).toMatch(/^Rate limit per second: \d+ of \d+ left \(resets in \d+ s\)$/m);
    expect(words.stdout).toContain(`task ${task.id}  ${images.url('/gone.png')}: `);
  });
});

// Last: the stalled input holds the app's one task slot (TASK_CONCURRENCY 1) until afterAll closes the origin.
describe('atelier task watch, interrupted', () => {
  it('Ctrl-C stops watching, not the task, and says how to pick it up again', async () => {
    images.stall('/slow.jpg');
    const env = { ATELIER_URL: app.url, ATELIER_KEY: app.adminKey, ATELIER_CONFIG: join(scratch, 'no-config.json') };
    const running = startProcess(SHIM, ['batch', images.url('/slow.jpg'), '--watch', '--interval', '100'], env, {
      terminal: true,
    });
    await waitForOutput(running, 'PROCESSING', 30_000);
    running.interrupt();
    const timer = setTimeout(() => running.child.kill('SIGKILL'), 10_000);
    const code = await running.exited;
    clearTimeout(timer);
    expect(code, running.output()).toBe(130);
    const id = running.output().match(/Task (\d+) started/)?.[1];
    expect(running.output()).toContain(`\r\nStopped watching; task ${id} goes on: atelier task watch ${id}`);
    const task = await client(app.url, app.adminKey).get(`/v1/image/edit/batch/${id}`);
    expect(task.body.data.status).toBe('PROCESSING');
    const cancelled = await atelier(['task', 'cancel', String(id)]);
    expect(cancelled.code, cancelled.output).toBe(0);
    // the stalled item is being edited: it may still end, so it is counted among those not run for now
    expect(cancelled.stdout).toBe(`Task ${id} CANCELLED: 0 done, 0 failed, 1 not run.\n`);
    const again = await atelier(['task', 'cancel', String(id)]);
    expect(again.output).toMatch(/has ended/);
  });
});
