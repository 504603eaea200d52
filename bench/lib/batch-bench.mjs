// The batch suite (bench/README.md): a folder of 3-12 MP JPEGs in a real S3-compatible server (s3rver), fitted
// into 1024x1024 as JPEG q85 by batch tasks (POST /v1/image/edit/batch) with one and two worker processes
// (BullMQ on Redis, PostgreSQL) and by the API alone in embedded mode, against a plain sharp loop over the same
// files on disk; then the worker's memory with ten times as many items.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import pg from 'pg';
import sharp from 'sharp';
import { batchPhotos } from './batch-fixture.mjs';
import { between, sample, waitForQuiet } from './cpu.mjs';
import { plainLoop, pool, s3Loop } from './batch-loops.mjs';
import { describe } from './sharp-work.mjs';
import { sleep, startNodeServer, startService, startWorker, stop } from './processes.mjs';

const ROOT = resolve(import.meta.dirname, '..', '..');
const S3RVER_MAIN = join(ROOT, 'test', 'helpers', 's3rver-main.mjs');
const BUCKET = 'bench';
const STORAGE = 'bench';
/** The edit of every method: the edit suite's JPEG case. */
const OPERATIONS = { resizing: { width: 1024, height: 1024, fit: 'bounds' } };
/** Longest wait for one task: far above any expected run, so that a stuck task ends the run with an error. */
const TASK_TIMEOUT_MS = 30 * 60_000;
/** A slow poll besides the webhook, in case the webhook never comes. */
const POLL_MS = 5_000;
const RSS_SAMPLE_MS = 250;
const UPLOAD_CONCURRENCY = 8;

const MiB = 2 ** 20;

/** VmRSS and VmHWM (peak) of a process, in bytes, from /proc (Linux); undefined elsewhere. */
export function memory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
    return { rss: field('VmRSS'), peak: field('VmHWM') };
  } catch {
    return undefined;
  }
}

/** PostgreSQL and Redis for scaled mode: the environment's URLs, else the local defaults; undefined if either is down. */
export async function scaledBackends(log) {
  const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const database = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3_000 });
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 3_000 });
  try {
    await database.connect();
    await redis.connect();
    await redis.ping();
    const name = `atelier_bench_${randomBytes(5).toString('hex')}`;
    await database.query(`CREATE DATABASE ${name}`);
    const url = new URL(databaseUrl);
    url.pathname = `/${name}`;
    const prefix = `atelier-bench-${randomBytes(4).toString('hex')}`;
    return {
      env: { DATABASE_URL: url.toString(), REDIS_URL: redisUrl, REDIS_PREFIX: prefix },
      drop: async () => {
        await database.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
          if (keys.length) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
        await database.end();
        redis.disconnect();
      },
    };
  } catch (error) {
    log(`scaled mode skipped: PostgreSQL (${databaseUrl}) or Redis (${redisUrl}) not reachable: ${error.message}`);
    await database.end().catch(() => {});
    redis.disconnect();
    return undefined;
  }
}

/**
 * A webhook receiver on 127.0.0.1: each run gets its own URL (`urlFor(run)`, task ids repeat across
 * databases), and `finished(run)` resolves with the time its webhook arrived.
 */
export async function webhookReceiver() {
  const waiting = new Map();
  const arrived = new Map();
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200).end();
      const run = decodeURIComponent(request.url.slice('/hook/'.length));
      arrived.set(run, performance.now());
      waiting.get(run)?.();
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${server.address().port}/hook/`;
  return {
    urlFor: (run) => `${base}${encodeURIComponent(run)}`,
    finished: (run) =>
      new Promise((done) => {
        if (arrived.has(run)) return done(arrived.get(run));
        waiting.set(run, () => done(arrived.get(run)));
      }),
    close: () => new Promise((done) => server.close(done)),
  };
}

/** A client of one started API: JSON calls with its admin key; throws on an unexpected status. */
export function apiClient(base, key) {
  return async (method, path, body, expected = 200) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (response.status !== expected)
      throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text).data;
  };
}

/** Every key under `prefix` in the bench bucket (paged), with its size. */
async function listAll(s3, prefix) {
  const keys = [];
  let token;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix, ContinuationToken: token, MaxKeys: 1000 }),
    );
    for (const item of page.Contents ?? []) keys.push(item.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

/**
 * One batch task over `source` into `out/<run>/`, timed from the POST to its webhook; checks that it is DONE
 * with every item and that the bucket holds one output per input; samples the processes' memory meanwhile.
 */
async function batchRun({ call, hook, s3, source, recursive, items, run, watch, log }) {
  const samples = [];
  const began = performance.now();
  const timer = setInterval(() => {
    samples.push(Object.fromEntries(Object.entries(watch).map(([label, pid]) => [label, memory(pid)?.rss])));
  }, RSS_SAMPLE_MS);
  let task;
  try {
    task = await call(
      'POST',
      '/v1/image/edit/batch',
      {
        input: recursive ? { source, recursive: true } : source,
        operations: OPERATIONS,
        output: { destination: `storage://${STORAGE}/out/${run}/`, format: 'jpeg' },
        webhook_url: hook.urlFor(run),
      },
      200,
    );
    const deadline = began + TASK_TIMEOUT_MS;
    let ended;
    const webhook = hook.finished(run).then((at) => (ended = at));
    while (ended === undefined) {
      await Promise.race([webhook, sleep(POLL_MS)]);
      if (ended !== undefined) break;
      const view = await call('GET', `/v1/image/edit/batch/${task.id}`);
      if (view.status === 'ERROR')
        throw new Error(`task ${run} ended in ERROR: ${JSON.stringify(view.errors?.slice(0, 3))}`);
      if (performance.now() > deadline) throw new Error(`task ${run} did not end in ${TASK_TIMEOUT_MS / 60000} min`);
    }
    const seconds = (ended - began) / 1000;
    const peaks = Object.fromEntries(Object.entries(watch).map(([label, pid]) => [label, memory(pid)?.peak]));
    task = await call('GET', `/v1/image/edit/batch/${task.id}`);
    const { total, done, failed } = task.progress ?? {};
    if (task.status !== 'DONE' || total !== items || done !== items || failed !== 0) {
      throw new Error(`task ${run}: ${task.status}, progress ${JSON.stringify(task.progress)}, not ${items} done`);
    }
    const outputs = await listAll(s3, `out/${run}/`);
    if (outputs.length !== items) throw new Error(`task ${run}: ${outputs.length} outputs in the bucket, not ${items}`);
    const first = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: outputs[0] }));
    const found = await describe(Buffer.from(await first.Body.transformToByteArray()));
    if (found.format !== 'jpeg' || Math.max(found.width, found.height) !== 1024) {
      throw new Error(`task ${run}: ${outputs[0]} is a ${found.format} ${found.width}x${found.height}`);
    }
    log(`  ${run}: ${items} items in ${seconds.toFixed(1)} s, ${(items / seconds).toFixed(2)} img/s; outputs checked`);
    const course = Object.fromEntries(Object.keys(watch).map((label) => [label, fifths(samples, label)]));
    return { items, seconds, peaks, fifths: course };
  } finally {
    clearInterval(timer);
  }
}

/** The largest value of `label` in each fifth of the run's samples (MiB): memory over the run. */
function fifths(samples, label) {
  const values = samples.map((s) => s[label]).filter(Number.isFinite);
  if (values.length < 5) return [];
  return Array.from(
    { length: 5 },
    (_, i) =>
      Math.max(...values.slice(Math.floor((i * values.length) / 5), Math.floor(((i + 1) * values.length) / 5))) / MiB,
  );
}

/** The API started on `env`, with the bench bucket as storage `bench`. */
export async function startApi(options, env, s3server) {
  const api = await startService(resolve(ROOT, options.main), env, options.serviceNodeArgs);
  const call = apiClient(api.base, env.ADMIN_API_KEY);
  await call(
    'POST',
    '/v1/storage/storages',
    {
      name: STORAGE,
      type: 's3',
      parameters: {
        bucket: BUCKET,
        endpoint: s3server.endpoint,
        credentials: { access_key: s3server.accessKey, secret_access_key: s3server.secretKey },
      },
    },
    200,
  );
  return { ...api, call };
}

/** s3rver, its own process (as in the tests), with the bench bucket and a key pair of this run, and a client. */
export async function startS3(folder) {
  const s3server = {
    accessKey: `AKIABENCH${randomBytes(6).toString('hex').toUpperCase()}`,
    secretKey: randomBytes(24).toString('base64url'),
  };
  const s3dir = join(folder, 's3');
  mkdirSync(s3dir);
  const s3child = await startNodeServer(
    S3RVER_MAIN,
    [s3dir, BUCKET],
    { PATH: process.env.PATH, S3RVER_ACCESS_KEY: s3server.accessKey, S3RVER_SECRET_KEY: s3server.secretKey },
    ['--openssl-legacy-provider'],
  );
  s3server.endpoint = `http://127.0.0.1:${s3child.port}`;
  const s3 = new S3Client({
    endpoint: s3server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: s3server.accessKey, secretAccessKey: s3server.secretKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return { s3server, s3child, s3 };
}

/**
 * One batch on fresh worker processes (`step.main`: another build's worker, else this one's), measured as
 * `step.kind`; the webhook's run name is `step.run` (default: the kind), unique within the suite.
 */
async function workerRun({ options, api, apiEnv, hook, s3, pids, measure, log }, step) {
  const run = step.run ?? step.kind;
  log(`batch of ${step.items}, ${step.workers} worker process(es) (BullMQ)${step.main ? ` of ${step.main}` : ''} ...`);
  const workers = [];
  for (let i = 0; i < step.workers; i++) {
    workers.push(
      await startWorker(
        resolve(ROOT, step.main ?? options.workerMain),
        { ...apiEnv, PUBLIC_BASE_URL: api.base },
        options.workerNodeArgs,
      ),
    );
  }
  const watch = Object.fromEntries(workers.map((w, i) => [`worker${i + 1}`, w.child.pid]));
  Object.assign(pids, watch);
  try {
    return await measure(step.label, step.kind, () =>
      batchRun({ call: api.call, hook, s3, ...step, run, watch: { ...watch, api: api.child.pid }, log }),
    );
  } finally {
    for (const label of Object.keys(watch)) delete pids[label];
    await Promise.all(workers.map((w) => stop(w.child)));
  }
}

/**
 * `--worker-base=PATH`: side by side in one run, `--batch-rounds` rounds of the S3 loop (two at a time), one
 * worker of this build and one of the base build, in an order rotated from round to round, each over the same
 * photos into its own folder. Prints each round's ratios; the report gives the medians.
 */
async function compareWorkers(options, context) {
  const { serviceEnv, backends, folder, s3server, s3, hook, names, count, pids, measure, log } = context;
  const apiEnv = { ...serviceEnv, ...backends.env, DATA_DIR: join(folder, 'data-compare') };
  const api = await startApi(options, apiEnv, s3server);
  pids.api = api.child.pid;
  const source = `storage://${STORAGE}/in/part-0/`;
  const steps = [
    { kind: 's3-2', label: 'plain sharp loop on s3rver (AWS SDK), two images at a time' },
    { kind: `1w-${count}`, label: '1 worker process, this build', workers: 1 },
    { kind: `1w-base-${count}`, label: '1 worker process, base build', workers: 1, main: options.workerBase },
  ];
  try {
    for (let round = 0; round < options.batchRounds; round++) {
      const rates = {};
      for (let i = 0; i < steps.length; i++) {
        const step = steps[(i + round) % steps.length];
        const run = `${step.kind}-r${round}`;
        if (step.workers) {
          const result = await workerRun(
            { options, api, apiEnv, hook, s3, pids, measure, log },
            { ...step, run, items: count, source, recursive: false },
          );
          rates[step.kind] = count / result.seconds;
        } else {
          await measure(step.label, step.kind, async () => {
            const seconds = await s3Loop(s3, BUCKET, names, run, 2);
            rates[step.kind] = count / seconds;
            return { items: count, seconds };
          });
        }
      }
      const [loop, mine, base] = steps.map((step) => rates[step.kind]);
      log(
        `round ${round + 1}: S3 loop ${loop.toFixed(2)}, this build ${mine.toFixed(2)} (${(mine / loop).toFixed(2)} of the loop), ` +
          `base ${base.toFixed(2)} (${(base / loop).toFixed(2)}); this / base ${(mine / base).toFixed(2)}`,
      );
    }
  } finally {
    delete pids.api;
    await stop(api.child);
  }
}

/**
 * The suite. `folder` is the run's temporary folder; `cacheRoot` keeps the generated photos between runs;
 * `env` is the service's environment (admin key, loopback allowed, rate limits out of the way). Returns what
 * the report needs.
 */
export async function runBatchSuite(options, { folder, cacheRoot, env, log }) {
  const [count, large] = options.batchSizes;
  const copies = large / count;
  const { folder: photoFolder, names } = await batchPhotos(cacheRoot, count, log);
  const pixels = [];
  let bytes = 0;
  for (const name of names) {
    const path = join(photoFolder, name);
    bytes += statSync(path).size;
    const { width, height } = await sharp(path).metadata();
    pixels.push((width * height) / 1e6);
  }
  const input = {
    count,
    large,
    bytes,
    minMp: Math.min(...pixels),
    maxMp: Math.max(...pixels),
    meanMp: pixels.reduce((a, b) => a + b, 0) / pixels.length,
  };
  log(`batch: ${count} photos, ${input.minMp.toFixed(1)}-${input.maxMp.toFixed(1)} MP, ${(bytes / 1e6).toFixed(0)} MB`);

  const { s3server, s3child, s3 } = await startS3(folder);
  // in/part-0/ holds the photos once (the throughput runs' folder); in/ with its sub-folders `copies` times.
  const uploads = [];
  for (let part = 0; part < copies; part++) for (const name of names) uploads.push({ part, name });
  let began = performance.now();
  await pool(uploads, UPLOAD_CONCURRENCY, ({ part, name }) =>
    s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: `in/part-${part}/${name}`,
        Body: readFileSync(join(photoFolder, name)),
        ContentType: 'image/jpeg',
      }),
    ),
  );
  log(`uploaded ${uploads.length} objects to s3rver in ${((performance.now() - began) / 1000).toFixed(0)} s`);

  const hook = await webhookReceiver();
  const backends = await scaledBackends(log);
  // The edit suite's service environment (lib/bench.mjs childEnv), with one storage key for every process of
  // scaled mode and `info` logs, where the worker says it is connected.
  const serviceEnv = { ...env, STORAGE_ENCRYPTION_KEY: randomBytes(32).toString('hex'), LOG_LEVEL: 'info' };
  const runs = [];
  const pids = { s3rver: s3child.child.pid };
  const measure = async (label, kind, work) => {
    await waitForQuiet(pids, options.quiet);
    const before = sample(pids);
    const result = await work();
    const cpu = between(before, sample(pids));
    runs.push({ label, kind, ...result, cpu });
    return result;
  };
  try {
    log('plain sharp loop over the files on disk ...');
    for (const inFlight of [1, 2]) {
      await measure(
        `plain sharp loop, ${inFlight === 1 ? 'one image at a time' : 'two images at a time'}`,
        `plain-${inFlight}`,
        async () => {
          const seconds = await plainLoop(photoFolder, names, join(folder, `plain-${inFlight}`), inFlight);
          log(`  ${inFlight} at a time: ${(count / seconds).toFixed(2)} img/s`);
          return { items: count, seconds };
        },
      );
    }

    log('plain sharp loop reading from and writing to s3rver (AWS SDK), two images at a time ...');
    await measure('plain sharp loop on s3rver (AWS SDK), two images at a time', 's3-2', async () => {
      const seconds = await s3Loop(s3, BUCKET, names, 's3-loop-2', 2);
      const outputs = await listAll(s3, 'out/s3-loop-2/');
      if (outputs.length !== count) throw new Error(`the S3 loop left ${outputs.length} outputs, not ${count}`);
      log(`  2 at a time on s3rver: ${(count / seconds).toFixed(2)} img/s`);
      return { items: count, seconds };
    });

    if (backends && options.workerBase) {
      await compareWorkers(options, {
        serviceEnv,
        backends,
        folder,
        s3server,
        s3,
        hook,
        names,
        count,
        pids,
        measure,
        log,
      });
      return { input, runs, scaled: true, compared: true };
    }
    if (backends) {
      const apiEnv = { ...serviceEnv, ...backends.env, DATA_DIR: join(folder, 'data-scaled') };
      const api = await startApi(options, apiEnv, s3server);
      pids.api = api.child.pid;
      const plan = [
        { workers: 1, items: count, source: `storage://${STORAGE}/in/part-0/`, recursive: false },
        { workers: 2, items: count, source: `storage://${STORAGE}/in/part-0/`, recursive: false },
        { workers: 1, items: large, source: `storage://${STORAGE}/in/`, recursive: true, run: `1w-${large}-all` },
      ];
      for (const step of plan) {
        const kind = `${step.workers}w-${step.items}`;
        const label = `${step.workers} worker process${step.workers > 1 ? 'es' : ''} (BullMQ)`;
        await workerRun({ options, api, apiEnv, hook, s3, pids, measure, log }, { ...step, kind, label });
      }
      delete pids.api;
      await stop(api.child);
    }

    log(`batch of ${count}, embedded mode (the API process runs the items; SQLite) ...`);
    const embeddedEnv = { ...serviceEnv, DATA_DIR: join(folder, 'data-embedded') };
    const embedded = await startApi(options, embeddedEnv, s3server);
    pids.api = embedded.child.pid;
    try {
      await measure('the API alone, embedded mode (SQLite, in-process queue)', `embedded-${count}`, () =>
        batchRun({
          call: embedded.call,
          hook,
          s3,
          source: `storage://${STORAGE}/in/part-0/`,
          recursive: false,
          items: count,
          run: `embedded-${count}`,
          watch: { api: embedded.child.pid },
          log,
        }),
      );
    } finally {
      delete pids.api;
      await stop(embedded.child);
    }
  } finally {
    await hook.close();
    s3.destroy();
    await backends?.drop();
    await stop(s3child.child);
  }
  return { input, runs, scaled: Boolean(backends) };
}
