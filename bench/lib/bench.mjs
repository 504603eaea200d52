// The run (started by bench/run.mjs), five suites. edit: the same edit (a 12 MP JPEG fitted into 1024x1024, as
// JPEG, WEBP and AVIF) done by (a) sharp in-process, (b) the service's POST /v1/image/edit, (c) ipx, (d) a bare
// node:http server around sharp, (e) (a) with threads shared, (f) a lean server that keeps its result on disk;
// throughput and latency at concurrency 1, 2 and 4.
// batch: lib/batch-bench.mjs. vision: lib/vision-bench.mjs. scene: lib/scene-bench.mjs. outpaint:
// lib/outpaint-bench.mjs. soak (only when named):
// lib/soak-bench.mjs. memory (only when named): lib/memory-bench.mjs. See bench/README.md.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { avifTune } from './avif-tune.mjs';
import { writePhoto, PHOTO_HEIGHT, PHOTO_WIDTH } from './fixture.mjs';
import { between, sample, waitForQuiet } from './cpu.mjs';
import { closedLoop, summarise } from './load.mjs';
import { describeMachine } from './machine.mjs';
import { bare, inProcess, inProcessShared, ipx, lean, service, verify } from './methods.mjs';
import { readOptions } from './options.mjs';
import { startNodeServer, stopAll } from './processes.mjs';
import { renderAdmission, runAdmission } from './admission-bench.mjs';
import { renderBatch, renderComparison } from './batch-report.mjs';
import { runBatchSuite } from './batch-bench.mjs';
import { renderOutpaint, runOutpaintSuite } from './outpaint-bench.mjs';
import { renderScene, runSceneSuite } from './scene-bench.mjs';
import { renderMemory, runMemorySuite } from './memory-bench.mjs';
import { runSoakSuite } from './soak-bench.mjs';
import { renderSoak } from './soak-report.mjs';
import { runVisionSuite } from './vision-bench.mjs';
import { renderVision } from './vision-report.mjs';
import { formatTable, renderResults, targetLines, writeResults } from './report.mjs';
import { fitBounds } from './sharp-work.mjs';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DOC = join(ROOT, 'docs', 'benchmarks.md');
const DOC_HEADING = '# Benchmarks\n\nHow they run: bench/README.md.\n';
/** Generated photos of the batch suite, kept between runs (git-ignored). */
const CACHE = join(ROOT, 'bench', '.cache');

const log = (line) => process.stdout.write(`${line}\n`);

/** Environment of every server process: the service's start script's allocator setting, embedded mode. */
function childEnv(folder) {
  const env = { ...process.env, MALLOC_ARENA_MAX: '2' };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'TEMP_BUCKET', 'PUBLIC_BASE_URL', 'PORT', 'HOST']) delete env[name];
  const serviceEnv = {
    ...env,
    DATA_DIR: join(folder, 'data'),
    ADMIN_API_KEY: randomBytes(30).toString('base64url'),
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_PER_MINUTE: '60000000',
    LOG_LEVEL: 'warn',
  };
  return { env, serviceEnv };
}

/** Starts one method's server ((a) needs none). */
function startMethod(id, context) {
  log(`starting (${id}) ...`);
  return { a: inProcess, b: service, c: ipx, d: bare, e: inProcessShared, f: lean }[id](context);
}

/** `client 3, origin 1, b 80, ...`: each process's CPU ms per request of one measurement. */
function perImage(result) {
  const each = Object.entries(result.cpu?.eachMs ?? {});
  return each.map(([label, ms]) => `${label} ${(ms / result.requests).toFixed(0)}`).join(', ');
}

/**
 * Every cell (format x concurrency), each in `rounds` rounds; within a round every method runs once, in an
 * order rotated from round to round and cell to cell so that a slow spell of the shared machine does not
 * always fall on the same method.
 */
async function measure(options, methods, pids) {
  const results = {};
  let turn = 0;
  let waitedMs = 0;
  const first = sample(pids);
  for (const format of options.formats) {
    const { measured, rounds } = options.plan[format];
    results[format] = {};
    for (const concurrency of options.concurrency) {
      const collected = new Map(methods.map((m) => [m.id, []]));
      for (let round = 0; round < rounds; round++) {
        const order = methods.map((_, i) => methods[(i + turn) % methods.length]);
        turn++;
        for (const method of order) {
          const share = Math.round(measured / rounds);
          const maxWaitMs = Math.min(options.quiet.maxWaitMs, options.quiet.budgetMs - waitedMs);
          waitedMs += (await waitForQuiet(pids, { ...options.quiet, maxWaitMs })).waitedMs;
          const before = sample(pids);
          const result = await closedLoop(method.request(format), {
            concurrency,
            warmup: concurrency,
            measured: share,
          });
          const after = sample(pids);
          result.cpu = between(before, after);
          result.elapsed = before && after ? (after.at - before.at) / 1000 : 0;
          collected.get(method.id).push(result);
          const s = summarise([result]);
          log(
            `${format} c=${concurrency} round ${round + 1}/${rounds} (${method.id}): ${s.throughput.toFixed(2)} img/s, ` +
              `p50 ${s.p50.toFixed(0)} ms, p95 ${s.p95.toFixed(0)} ms, CPU ${s.cpuMsPerImage.toFixed(0)} ms/img, ` +
              `others ${s.othersCores.toFixed(2)} cores; CPU ms/img by process ${perImage(result)}`,
          );
        }
      }
      for (const [id, list] of collected) (results[format][id] ??= {})[concurrency] = summarise(list);
    }
  }
  return { results, waitedMs, othersCores: between(first, sample(pids))?.othersCores };
}

/** Prints the tables and targets; writes the JSON and the doc when asked to. */
function report(options, run) {
  const { machine, methods, results, sizes, avif, seconds, waitedMs } = run;
  log('');
  for (const format of options.formats) log(formatTable(format, results, methods, options.concurrency));
  log(targetLines(results, options.formats, methods));
  if (options.json) writeFileSync(options.json, JSON.stringify({ machine, options, results, sizes, avif }, null, 2));
  if (options.writeDoc) {
    writeResults(DOC, renderResults({ options, ...run }), DOC_HEADING, 'edit');
    log(`\nwritten to ${DOC}`);
  } else {
    log('\n(docs/benchmarks.md not written: not a full run; --doc forces it)');
  }
  const waited = (waitedMs / 60000).toFixed(1);
  log(`run time ${(seconds / 60).toFixed(1)} min, of which ${waited} min waiting for a quieter machine`);
}

/** The edit suite: the six methods, every format and concurrency; then the admission part. */
async function editSuite(options, folder, machine) {
  const inputFolder = join(folder, 'input');
  mkdirSync(inputFolder);
  const photoPath = await writePhoto(inputFolder);
  const photo = readFileSync(photoPath);
  if (options.editParts.includes('methods')) await methodsPart(options, folder, machine, { inputFolder, photo });
  if (options.editParts.includes('admission')) await admissionPart(options, folder, machine, photo);
}

/** The six methods on the photo, every format and concurrency. */
async function methodsPart(options, folder, machine, { inputFolder, photo }) {
  const began = performance.now();
  const { env, serviceEnv } = childEnv(folder);
  const size = fitBounds(PHOTO_WIDTH, PHOTO_HEIGHT);
  const origin = await startNodeServer(
    join(import.meta.dirname, '..', 'servers', 'origin-server.mjs'),
    [inputFolder],
    env,
  );
  const inputUrl = `http://127.0.0.1:${origin.port}/photo.jpg`;
  log(`input ${inputUrl}: ${PHOTO_WIDTH}x${PHOTO_HEIGHT}, ${photo.length} bytes; output ${size.width}x${size.height}`);

  const context = {
    photo,
    size,
    inputUrl,
    env,
    main: resolve(ROOT, options.main),
    serviceNodeArgs: options.serviceNodeArgs,
    folder,
  };
  // The service at its default log level (one line per request at info), as it runs unless told otherwise: the
  // issue measures its own cost against the lean server (f) that way.
  const defaultLogEnv = { ...serviceEnv };
  delete defaultLogEnv.LOG_LEVEL;
  const contextFor = (id) => (id === 'b' ? { ...context, env: defaultLogEnv } : context);
  const methods = [];
  for (const id of options.methods) methods.push(await startMethod(id, contextFor(id)));

  const sizes = {};
  for (const method of methods) {
    sizes[method.id] = await verify(method, options.formats, size);
    log(`(${method.id}) ${method.label}: outputs checked (${JSON.stringify(sizes[method.id])} bytes)`);
  }

  const pids = {
    origin: origin.child.pid,
    ...Object.fromEntries(methods.filter((m) => m.child).map((m) => [m.id, m.child.pid])),
  };
  const { results, waitedMs, othersCores } = await measure(options, methods, pids);
  let avif;
  if (options.formats.includes('avif')) {
    log('AVIF tune side measurement ...');
    avif = await avifTune(photo, size, options.avifTuneRuns);
  }
  await stopAll();

  const seconds = (performance.now() - began) / 1000;
  const input = { width: PHOTO_WIDTH, height: PHOTO_HEIGHT, bytes: photo.length };
  report(options, { machine, methods, results, sizes, avif, input, seconds, waitedMs, othersCores });
}

/** The admission part (lib/admission-bench.mjs): this build, and the one of --admission-base beside it. */
async function admissionPart(options, folder, machine, photo) {
  const { serviceEnv } = childEnv(folder);
  const builds = [{ label: 'this build', main: resolve(ROOT, options.main) }];
  if (options.admission.base) builds.unshift({ label: 'base build', main: resolve(options.admission.base) });
  const run = await runAdmission(options, {
    builds,
    env: serviceEnv,
    nodeArgs: options.serviceNodeArgs,
    photo,
    cacheRoot: CACHE,
    log,
  });
  await stopAll();
  writeSection(renderAdmission({ machine, ...run }, options), 'admission', options.writeAdmissionDoc, 'a quick run');
}

/** Prints a suite's section and writes it into its block of the doc when asked to (else says why not). */
function writeSection(section, block, write, whyNot) {
  log(`\n${section}`);
  if (write) {
    writeResults(DOC, section, DOC_HEADING, block);
    log(`written to ${DOC}`);
  } else {
    log(`(docs/benchmarks.md not written: ${whyNot}; --doc forces it)`);
  }
}

/** The batch suite (lib/batch-bench.mjs): prints its table and targets, writes its part of the doc. */
async function batchSuite(options, folder, machine) {
  const began = performance.now();
  const { serviceEnv } = childEnv(folder);
  const result = await runBatchSuite(options, { folder, cacheRoot: CACHE, env: serviceEnv, log });
  await stopAll();
  if (result.compared) return log(`\n${renderComparison(result)}`);
  const section = renderBatch({ machine, options, ...result, seconds: (performance.now() - began) / 1000 });
  writeSection(section, 'batch', options.writeBatchDoc, 'not a full batch run');
}

/**
 * The vision suite (lib/vision-bench.mjs): prints its block and writes it into the doc after a run with its
 * defaults in which the reference ran and no row failed; a row that failed (not one skipped as not installed)
 * fails the run.
 */
async function visionSuite(options, folder, machine) {
  const { env, serviceEnv } = childEnv(folder);
  const main = resolve(ROOT, options.main);
  const result = await runVisionSuite(options, { main, folder, env, serviceEnv, cacheRoot: CACHE, log });
  await stopAll();
  const failed = [...result.removal, ...result.others].filter((row) => row.failed);
  const complete = Boolean(result.reference) && failed.length === 0;
  const write = options.writeVisionDoc && (complete || options.docForced);
  const whyNot = !options.writeVisionDoc
    ? 'a quick or partial vision run'
    : failed.length > 0
      ? 'a row failed'
      : 'the reference (imgly) did not run';
  writeSection(renderVision({ machine, options, ...result }), 'vision', write, whyNot);
  if (failed.length > 0) {
    log(`vision rows that failed: ${failed.map((row) => row.name).join('; ')}`);
    process.exitCode = 1;
  }
}

/** The scene suite (lib/scene-bench.mjs): prints its block, writes it after a run that is not quick. */
async function sceneSuite(options, folder, machine) {
  const { env, serviceEnv } = childEnv(folder);
  const main = resolve(ROOT, options.main);
  const result = await runSceneSuite(options, { main, folder, env, serviceEnv, log });
  await stopAll();
  const failed = result.rows.filter((row) => row.failed);
  writeSection(
    renderScene({ machine, options, ...result }),
    'scene',
    options.writeSceneDoc && failed.length === 0,
    failed.length > 0 ? 'a row failed' : 'a quick run',
  );
  if (failed.length > 0) process.exitCode = 1;
}

/** The outpaint suite (lib/outpaint-bench.mjs): prints its tables, writes them after a run that is not quick. */
async function outpaintSuite(options, folder) {
  const { env, serviceEnv } = childEnv(folder);
  const main = resolve(ROOT, options.main);
  const before = options.outpaint.before && resolve(options.outpaint.before);
  const result = await runOutpaintSuite(
    {
      ...options,
      outpaint: { ...options.outpaint, before, gallery: options.writeOutpaintDoc || options.outpaint.gallery },
    },
    { main, folder, env, serviceEnv, log },
  );
  await stopAll();
  writeSection(renderOutpaint(result), 'outpaint', options.writeOutpaintDoc, 'a quick run');
}

/** The soak suite (lib/soak-bench.mjs): prints its block, writes it after a run of its full length. */
async function soakSuite(options, folder, machine) {
  const began = performance.now();
  const { serviceEnv } = childEnv(folder);
  const result = await runSoakSuite(options, { folder, env: serviceEnv, log });
  await stopAll();
  const section = renderSoak({ machine, options, ...result, seconds: (performance.now() - began) / 1000 });
  writeSection(section, 'soak', options.writeSoakDoc, 'a run shorter than 10 minutes');
}

/** The memory suite (lib/memory-bench.mjs): prints its table, writes it after a run that is not quick. */
async function memorySuite(options, folder, machine) {
  const { serviceEnv } = childEnv(folder);
  const main = resolve(ROOT, options.main);
  const result = await runMemorySuite(options, {
    main,
    env: serviceEnv,
    nodeArgs: options.serviceNodeArgs,
    cacheRoot: CACHE,
    log,
  });
  await stopAll();
  writeSection(renderMemory({ machine, ...result }), 'memory', options.writeMemoryDoc, 'a quick run');
}

async function main() {
  const options = readOptions(process.argv.slice(2));
  if (options.help) return log(options.help);
  const folder = mkdtempSync(join(tmpdir(), 'atelier-bench-'));
  try {
    const machine = describeMachine();
    for (const suite of options.suites) {
      const own = join(folder, suite);
      mkdirSync(own);
      await {
        edit: editSuite,
        batch: batchSuite,
        vision: visionSuite,
        scene: sceneSuite,
        outpaint: outpaintSuite,
        soak: soakSuite,
        memory: memorySuite,
      }[suite](options, own, machine);
    }
  } finally {
    await stopAll();
    rmSync(folder, { recursive: true, force: true });
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    stopAll().finally(() => process.exit(130));
  });
}

export function run() {
  return main().catch(async (error) => {
    process.stderr.write(`bench failed: ${error?.stack ?? error}\n`);
    await stopAll();
    process.exitCode = 1;
  });
}
