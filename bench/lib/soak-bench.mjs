// The soak suite (bench/README.md): the built API and one worker (PostgreSQL and Redis, else embedded mode), an
// s3rver and an image origin on 127.0.0.1, under a bounded mixed load for --soak-minutes (10 by default):
// synchronous edits in four formats, asynchronous edits and small batches with webhooks, polling of those tasks,
// listings, and reads of a 5,000-result task. RSS of each process every few seconds, latency and status of every
// request. Before it, on a fresh API: its RSS while a 5,000- and then a 50,000-result task is read again and again.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { memory, scaledBackends, startApi, startS3, webhookReceiver } from './batch-bench.mjs';
import { sleep, startNodeServer, startService, startWorker, stop } from './processes.mjs';
import { insertFinishedTask, openDatabase } from './task-rows.mjs';

const ROOT = resolve(import.meta.dirname, '..', '..');
const ORIGIN_MAIN = join(import.meta.dirname, '..', 'servers', 'origin-server.mjs');
/** Requests in flight at once: a steady load on two shared cores, not an overload. */
const LANES = 3;
/** Pause of a lane between two requests. */
const PAUSE_MS = 50;
/** Tasks polled at once at most; past it a lane polls instead of creating one (the load stays bounded). */
const OPEN_TASKS = 6;
const RSS_SAMPLE_MS = 5_000;
const REQUEST_TIMEOUT_MS = 60_000;
/** How long after the load the last tasks' webhooks may take. */
const DRAIN_MS = 60_000;
/** The memory measurement: task sizes, and reads of the largest (two at a time; the others as many bytes). */
const MEMORY_SIZES = [5_000, 50_000];
const MEMORY_READS = { full: 6, quick: 2 };
/** The large task the soak's lanes read now and then. */
const SOAK_LARGE = 5_000;

/**
 * The kinds of request, in the order each lane walks them (weights by repetition): sync edits of several
 * formats and operations, polls, listings, tasks created with webhooks, and the streamed large task.
 */
const SCHEDULE = [
  'edit-jpeg',
  'poll',
  'edit-webp',
  'list',
  'async',
  'poll',
  'edit-png',
  'poll',
  'edit-jpeg-s3',
  'batch',
  'poll',
  'edit-avif',
  'list',
  'poll',
  'large-task',
  'poll',
];

const EDITS = {
  'edit-jpeg': {
    input: 'photo.jpg',
    operations: { resizing: { width: 800, height: 800, fit: 'bounds' } },
    output: { format: 'jpeg' },
  },
  'edit-webp': {
    input: 'photo.jpg',
    operations: { resizing: { width: 640, height: 640, fit: 'canvas' }, adjustments: { exposure: 10 } },
    output: { format: 'webp' },
  },
  'edit-png': {
    input: 'logo.png',
    operations: { resizing: { width: 256, height: 256, fit: 'bounds' }, padding: '5%' },
    output: { format: 'png' },
  },
  'edit-avif': {
    input: 'photo.jpg',
    operations: { resizing: { width: 320, height: 320, fit: 'bounds' } },
    output: { format: 'avif' },
  },
  'edit-jpeg-s3': {
    input: 'photo.jpg',
    operations: { resizing: { width: 1024, height: 1024, fit: 'bounds' } },
    output: { format: 'jpeg', destination: 'storage://bench/soak/' },
  },
};

/** The inputs, generated: a 1.9 MP JPEG photo-like noise, a 600x600 PNG with transparency. */
async function writeInputs(folder) {
  mkdirSync(folder, { recursive: true });
  const noise = { type: 'gaussian', mean: 128, sigma: 40 };
  const photo = sharp({ create: { width: 1600, height: 1200, channels: 3, noise } })
    .blur(2)
    .jpeg({ quality: 88 });
  writeFileSync(join(folder, 'photo.jpg'), await photo.toBuffer());
  const logo = sharp({
    create: { width: 600, height: 600, channels: 4, background: { r: 200, g: 40, b: 90, alpha: 0.6 } },
  });
  writeFileSync(join(folder, 'logo.png'), await logo.png().toBuffer());
}

/** Every request of the run: its kind, status (or `network`), and milliseconds. */
function recorder() {
  const latencies = new Map();
  const statuses = new Map();
  return {
    add(kind, status, ms) {
      if (!latencies.has(kind)) latencies.set(kind, []);
      latencies.get(kind).push(ms);
      const key = `${kind} ${status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
    },
    latencies,
    statuses,
  };
}

/** One timed request; the body read to its end (and parsed when asked); never throws. */
async function timed(record, kind, base, key, method, path, body, parse = true) {
  const began = performance.now();
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = parse ? await response.text() : String((await response.arrayBuffer()).byteLength);
    record.add(kind, response.status, performance.now() - began);
    return { status: response.status, data: parse && response.status === 200 ? JSON.parse(text).data : undefined };
  } catch (error) {
    record.add(kind, error?.name === 'TimeoutError' ? 'timeout' : 'network', performance.now() - began);
    return { status: 0 };
  }
}

/** RSS of each watched process every RSS_SAMPLE_MS: `{ at (s from start), label: bytes }`. */
function rssSampler(watch, began) {
  const samples = [];
  const take = () =>
    samples.push({
      at: (performance.now() - began) / 1000,
      ...Object.fromEntries(Object.entries(watch).map(([label, pid]) => [label, memory(pid)?.rss])),
    });
  take();
  const timer = setInterval(take, RSS_SAMPLE_MS);
  return { samples, stop: () => clearInterval(timer) };
}

/** The mixed load until `until` (performance.now()); the tasks it created and their webhooks' fates. */
async function mixedLoad({ base, key, origin, hook, largeId, until, record }) {
  const open = [];
  const tasks = { created: 0, done: 0, error: 0, hooks: [] };
  const createTask = async (kind) => {
    const run = `soak-${kind}-${tasks.created++}`;
    const inputs = [origin('photo.jpg'), origin('logo.png'), origin('photo.jpg')];
    const body =
      kind === 'async'
        ? {
            input: inputs[0],
            operations: { resizing: { width: 400 } },
            output: { format: 'webp' },
            webhook_url: hook.urlFor(run),
          }
        : {
            input: inputs,
            operations: { resizing: { width: 300 } },
            output: { format: 'jpeg', destination: `storage://bench/tasks/${run}/` },
            webhook_url: hook.urlFor(run),
          };
    const { status, data } = await timed(record, kind, base, key, 'POST', `/v1/image/edit/${kind}`, body);
    if (status === 200) {
      open.push({ path: `/v1/image/edit/${kind}/${data.id}`, run });
      tasks.hooks.push(hook.finished(run));
    }
  };
  const poll = async () => {
    const task = open.shift();
    if (!task) return timed(record, 'list', base, key, 'GET', '/v1/tasks?per_page=20');
    const { status, data } = await timed(record, 'poll', base, key, 'GET', task.path);
    if (status === 200 && (data.status === 'DONE' || data.status === 'ERROR')) {
      tasks[data.status === 'DONE' ? 'done' : 'error']++;
    } else open.push(task);
  };
  const step = async (kind) => {
    if (EDITS[kind]) {
      const { input, ...rest } = EDITS[kind];
      return timed(record, kind, base, key, 'POST', '/v1/image/edit', { input: origin(input), ...rest });
    }
    if (kind === 'async' || kind === 'batch') return open.length < OPEN_TASKS ? createTask(kind) : poll();
    if (kind === 'poll') return poll();
    if (kind === 'list') return timed(record, 'list', base, key, 'GET', '/v1/tasks?per_page=20');
    return timed(record, 'large-task', base, key, 'GET', `/v1/image/edit/batch/${largeId}`, undefined, false);
  };
  await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      for (let turn = lane * 5; performance.now() < until; turn++) {
        await step(SCHEDULE[turn % SCHEDULE.length]);
        await sleep(PAUSE_MS);
      }
    }),
  );
  // the tasks still open are polled to their end (bounded), so that every webhook can be counted
  const drainUntil = performance.now() + DRAIN_MS;
  while (open.length && performance.now() < drainUntil) {
    await poll();
    await sleep(200);
  }
  tasks.unfinished = open.length;
  const delivered = await Promise.all(
    tasks.hooks.map((hook) => Promise.race([hook.then(() => 1), sleep(1).then(() => 0)])),
  );
  tasks.webhooks = delivered.reduce((a, b) => a + b, 0);
  delete tasks.hooks;
  return tasks;
}

/**
 * The API's RSS while a finished task is read to its end again and again, two reads at a time, on a fresh API
 * per build and size: every size is read as many bytes in all (the 5,000-result task ten times as often as the
 * 50,000 one), so that V8's collections (the service starts with --initial-old-space-size=256: garbage is left
 * until old space is large) weigh the same on both, and what differs is what one read holds. RSS sampled every
 * 50 ms; the largest against the RSS before the reads.
 */
async function memoryPart({ options, builds, env, db, log }) {
  const rows = [];
  const key = env.ADMIN_API_KEY;
  for (const build of builds) {
    for (const count of MEMORY_SIZES) {
      const api = await startService(build.main, env, options.serviceNodeArgs);
      const record = recorder();
      let peak = 0;
      let timer;
      try {
        // the first request of the admin key makes its account, which the task belongs to
        await timed(record, 'list', api.base, key, 'GET', '/v1/tasks');
        const database = await db();
        const id = await insertFinishedTask(database, 'default', count).finally(() => database.close());
        await sleep(2_000);
        const before = memory(api.child.pid)?.rss;
        timer = setInterval(() => (peak = Math.max(peak, memory(api.child.pid)?.rss ?? 0)), 50);
        const reads = (MEMORY_READS[options.quick ? 'quick' : 'full'] * MEMORY_SIZES.at(-1)) / count;
        for (let i = 0; i < reads; i += 2) {
          const read = () =>
            timed(record, 'read', api.base, key, 'GET', `/v1/image/edit/batch/${id}`, undefined, false);
          await Promise.all([read(), read()]);
        }
        clearInterval(timer);
        const failed = [...record.statuses].filter(([status]) => !status.endsWith(' 200'));
        if (failed.length) throw new Error(`memory: reads of ${count} results failed: ${JSON.stringify(failed)}`);
        const response = await fetch(`${api.base}/v1/image/edit/batch/${id}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        const bytes = (await response.arrayBuffer()).byteLength;
        const ms = record.latencies.get('read');
        rows.push({ build: build.label, count, bytes, reads: ms.length, medianMs: percentile(ms, 0.5), before, peak });
        log(
          `  memory (${build.label}): ${count} results read ${ms.length} times, ${(bytes / 1e6).toFixed(1)} MB each: API RSS ${mb(before)} -> peak ${mb(peak)} MiB`,
        );
      } finally {
        clearInterval(timer);
        await stop(api.child);
      }
    }
  }
  return rows;
}

const mb = (bytes) => (bytes / 2 ** 20).toFixed(0);

/** The q-quantile (0..1) of a list of numbers (nearest rank). */
export function percentile(values, q) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** The suite: the memory part on a fresh API, then the soak on another API and one worker. Returns the report's data. */
export async function runSoakSuite(options, { folder, env, log }) {
  const inputs = join(folder, 'inputs');
  await writeInputs(inputs);
  const { s3server, s3child, s3 } = await startS3(folder);
  const originChild = await startNodeServer(ORIGIN_MAIN, [inputs], { PATH: process.env.PATH });
  const origin = (name) => `http://127.0.0.1:${originChild.port}/${name}`;
  const hook = await webhookReceiver();
  const backends = await scaledBackends(log);
  // the edit suite's environment (lib/bench.mjs childEnv); addresses not throttled: one client sends it all
  const serviceEnv = {
    ...env,
    ...backends?.env,
    STORAGE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'info',
    ADDRESS_RATE_LIMIT_PER_SECOND: '0',
    ADDRESS_RATE_LIMIT_PER_MINUTE: '0',
    DATA_DIR: join(folder, 'data'),
  };
  const db = () =>
    openDatabase({ databaseUrl: backends?.env.DATABASE_URL, sqliteFile: join(serviceEnv.DATA_DIR, 'atelier.sqlite') });
  const result = { scaled: Boolean(backends), minutes: options.soakMinutes };
  try {
    log('soak: memory of GET by id, 5,000 and 50,000 results ...');
    const builds = [{ label: 'this build', main: resolve(ROOT, options.main) }];
    if (options.memoryBase) builds.push({ label: 'base build', main: resolve(options.memoryBase) });
    result.memory = await memoryPart({ options, builds, env: serviceEnv, db, log });
    const api = await startApi(options, serviceEnv, s3server);
    const database = await db();
    result.largeId = await insertFinishedTask(database, 'default', SOAK_LARGE).finally(() => database.close());
    const workerEnv = { ...serviceEnv, PUBLIC_BASE_URL: api.base };
    const worker = backends
      ? await startWorker(resolve(ROOT, options.workerMain), workerEnv, options.workerNodeArgs)
      : undefined;
    const watch = { api: api.child.pid, ...(worker && { worker: worker.child.pid }), s3rver: s3child.child.pid };
    log(
      `soak: ${options.soakMinutes} min of mixed load, ${LANES} lanes, ${backends ? 'scaled mode (1 worker)' : 'embedded mode'} ...`,
    );
    const began = performance.now();
    const sampler = rssSampler(watch, began);
    const record = recorder();
    const progress = setInterval(
      () =>
        log(
          `  ${((performance.now() - began) / 60000).toFixed(1)} min, ${[...record.latencies.values()].reduce((n, l) => n + l.length, 0)} requests`,
        ),
      60_000,
    );
    try {
      result.tasks = await mixedLoad({
        base: api.base,
        key: serviceEnv.ADMIN_API_KEY,
        origin,
        hook,
        largeId: result.largeId,
        until: began + options.soakMinutes * 60_000,
        record,
      });
    } finally {
      clearInterval(progress);
      sampler.stop();
      if (worker) await stop(worker.child);
      await stop(api.child);
    }
    Object.assign(result, {
      samples: sampler.samples,
      latencies: record.latencies,
      statuses: record.statuses,
      labels: Object.keys(watch),
    });
  } finally {
    await hook.close();
    s3.destroy();
    await backends?.drop();
    await stop(originChild.child);
    await stop(s3child.child);
  }
  return result;
}
