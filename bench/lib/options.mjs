import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

export const ALL_METHODS = ['a', 'b', 'c', 'd', 'e', 'f'];
export const ALL_FORMATS = ['jpeg', 'webp', 'avif'];
export const ALL_CONCURRENCY = [1, 2, 4];
export const ALL_SUITES = ['edit', 'batch', 'vision', 'scene', 'outpaint', 'soak', 'memory'];
/** The suites of a plain `npm run bench`: the soak (10 minutes of load) and memory run only when named. */
const DEFAULT_SUITES = ['edit', 'batch', 'vision', 'scene', 'outpaint'];
/** Soak suite: minutes of load (--soak-minutes), and those of --quick. */
const SOAK_MINUTES = { full: 10, quick: 1 };
/** Parts of the edit suite: the five methods, and admission (uploads under overload, heavy HEIC uploads). */
export const ALL_EDIT_PARTS = ['methods', 'admission'];
const ADMISSION = { full: { seconds: 20, warmup: 5 }, quick: { seconds: 4, warmup: 1 } };
/** Batch suite: the throughput set and the larger set for the worker's memory (a multiple of the first). */
const BATCH_SIZES = { full: [500, 5000], quick: [24, 72] };
/**
 * Vision suite: requests measured per row after its warm-up (`runs`; `bigRuns` for background removal at 12 MP,
 * where the reference takes ~20 s a request on 2 cores), and how many composites of the set are judged.
 */
/** Requests per scene-suite row after its warm-up. */
const SCENE = { full: { runs: 10 }, quick: { runs: 1 } };

const VISION = {
  full: { runs: 5, bigRuns: 3, composites: Infinity },
  quick: { runs: 1, bigRuns: 1, composites: 3 },
};

/**
 * Requests measured per cell (format x method x concurrency), split into interleaved rounds. Chosen so that
 * the whole run takes about 8-10 minutes on 2 cores: an AVIF edit costs ~25x a JPEG edit here, so AVIF
 * gets the fewest requests (its p95 is then close to the maximum of 16: indicative only).
 */
const FULL_PLAN = {
  jpeg: { measured: 120, rounds: 3 },
  webp: { measured: 60, rounds: 2 },
  avif: { measured: 16, rounds: 1 },
};
const QUICK_PLAN = {
  jpeg: { measured: 12, rounds: 1 },
  webp: { measured: 6, rounds: 1 },
  avif: { measured: 3, rounds: 1 },
};
const AVIF_TUNE_RUNS = { full: 5, quick: 1 };
/**
 * Before each measurement, wait up to `maxWaitMs` (and `budgetMs` in all) for other processes to use at most
 * `maxCores` of the machine: a shared machine's builds and tests would otherwise decide the figures.
 */
const QUIET = { maxCores: 0.25, maxWaitMs: 20_000, budgetMs: 300_000 };

const USAGE = `node bench/run.mjs [options]
  --suites=edit,batch,vision,scene,outpaint  edit: one edit, five ways (below); batch: a folder of photos through
                         batch tasks; vision: background removal against @imgly/background-removal-node, upscale,
                         faces, plates; scene: scene creation (1 and 4 images at 1 MP), outpaint and style transfer;
                         outpaint: nine photos cropped and outpainted back, measured against the real photo;
                         soak (only when named): API and worker under mixed load, RSS over time, memory of big tasks;
                         memory (only when named): peak RSS of one edit per input format at 10, 25 and 49 MP
  --soak-minutes=N       soak suite: minutes of load (default 10; 1 with --quick; the doc needs 10 or more)
  --memory-base=PATH     soak suite: also measure the memory of big tasks on another build (its
                         dist/apps/api/src/main.js), e.g. the code before a change
  --methods=a,b,c,d,e    a: sharp in-process, b: the service, c: ipx, d: bare node:http + sharp,
                         e: sharp in-process with libvips threads shared as the service does,
                         f: lean node:http + sharp that writes its result to disk and answers JSON
  --formats=jpeg,webp,avif
  --concurrency=1,2,4
  --edit-rounds=N        edit suite: each cell's rounds N times over (default 1: JPEG 120 requests in 3 rounds),
                         to measure a ratio such as service / lean with less noise
  --edit-parts=methods,admission  methods: the five ways above; admission: upload goodput at 8 and 100
                         connections without back-off, peak RSS with eight 7000x7000 HEIC uploads (heif-enc)
  --admission-base=PATH  also run the admission part on another build (e.g. the code before a change:
                         its dist/apps/api/src/main.js), side by side
  --batch-sizes=500,5000 batch suite: photos for the throughput runs, items for the memory run (a multiple)
  --worker-base=PATH     batch suite, side by side instead of its runs: the S3 loop (two at a time), one worker
                         of this build and one of another build (e.g. the code before a change: its
                         dist/apps/worker/src/main.js), --batch-rounds=N rounds (default 3) of N photos
  --vision-runs=N[,M]    vision suite: requests per row after its warm-up (M: background removal at 12 MP;
                         default 5,3)
  --no-imgly             vision suite without its reference (@imgly/background-removal-node, AGPL-3.0, which
                         the bench otherwise installs into bench/.vendor/imgly on first use)
  --vision-before=PATH   vision suite: the removal rows also on another build (its dist/apps/api/src/main.js,
                         e.g. the code before issue 26, e888377), each scene's right after this build's: issue
                         26's time targets then read the ratio measured in the run
  --outpaint-before=PATH outpaint suite: also outpaint every photo with another build's service (its
                         dist/apps/api/src/main.js, e.g. the code before a change), in the same tables
  --outpaint-gallery     outpaint suite: write the pictures into docs/images/outpaint/ even when the doc is not
                         written (a run that writes the doc always does)
  --quick                a few requests per cell, 24 and 72 batch items, one request per vision row and three
                         composites (a smoke test; figures meaningless)
  --main=PATH            the built service (default dist/apps/api/src/main.js)
  --worker-main=PATH     the built worker (default dist/apps/worker/src/main.js)
  --service-node-args=A  node options for the service, space-separated (default: those of npm start)
  --worker-node-args=A   node options for the batch suite's workers (default: those of npm run start:worker),
                         e.g. "--initial-old-space-size=96 --cpu-prof --cpu-prof-dir=/tmp/prof" to profile them
  --json=PATH            also write the raw results as JSON
  --max-wait=SECONDS     longest wait for a quiet machine before each measurement (default 20, 5 min in all; 0: none)
  --doc / --no-doc       write docs/benchmarks.md (default: only after a full run)`;

function list(value, allowed, label) {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  for (const item of items) {
    if (!allowed.map(String).includes(item))
      throw new Error(`--${label}: "${item}" is not one of ${allowed.join(', ')}`);
  }
  return items;
}

function waitSeconds(value) {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 600)
    throw new Error(`--max-wait: "${value}" is not 0..600 seconds`);
  return seconds;
}

/** The run's settings from the command line; throws with the usage on a bad option. */
export function readOptions(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        suites: { type: 'string', default: DEFAULT_SUITES.join(',') },
        'soak-minutes': { type: 'string' },
        'memory-base': { type: 'string' },
        'batch-sizes': { type: 'string' },
        'worker-base': { type: 'string' },
        'batch-rounds': { type: 'string', default: '3' },
        'edit-rounds': { type: 'string', default: '1' },
        'vision-runs': { type: 'string' },
        'no-imgly': { type: 'boolean', default: false },
        'vision-before': { type: 'string' },
        'outpaint-before': { type: 'string' },
        'outpaint-gallery': { type: 'boolean' },
        methods: { type: 'string', default: ALL_METHODS.join(',') },
        formats: { type: 'string', default: ALL_FORMATS.join(',') },
        concurrency: { type: 'string', default: ALL_CONCURRENCY.join(',') },
        'edit-parts': { type: 'string', default: ALL_EDIT_PARTS.join(',') },
        'admission-base': { type: 'string' },
        quick: { type: 'boolean', default: false },
        main: { type: 'string', default: 'dist/apps/api/src/main.js' },
        'worker-main': { type: 'string', default: 'dist/apps/worker/src/main.js' },
        'service-node-args': { type: 'string' },
        'worker-node-args': { type: 'string' },
        json: { type: 'string' },
        'max-wait': { type: 'string', default: String(QUIET.maxWaitMs / 1000) },
        doc: { type: 'boolean' },
        'no-doc': { type: 'boolean' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    throw new Error(`${error.message}\n${USAGE}`);
  }
  if (values.help) return { help: USAGE };
  const suites = list(values.suites, ALL_SUITES, 'suites');
  const batchSizes = values['batch-sizes']
    ? batchSizeList(values['batch-sizes'])
    : BATCH_SIZES[values.quick ? 'quick' : 'full'];
  const methods = list(values.methods, ALL_METHODS, 'methods');
  const formats = list(values.formats, ALL_FORMATS, 'formats');
  const concurrency = list(values.concurrency, ALL_CONCURRENCY, 'concurrency').map(Number);
  const editParts = list(values['edit-parts'], ALL_EDIT_PARTS, 'edit-parts');
  if (!methods.includes('a')) methods.unshift('a'); // the reference every ratio needs
  const full =
    !values.quick &&
    methods.length === ALL_METHODS.length &&
    formats.length === ALL_FORMATS.length &&
    concurrency.length === ALL_CONCURRENCY.length &&
    editParts.length === ALL_EDIT_PARTS.length &&
    values['service-node-args'] === undefined;
  return {
    suites: ALL_SUITES.filter((s) => suites.includes(s)),
    batchSizes,
    writeBatchDoc: values['worker-base']
      ? false
      : values['no-doc']
        ? false
        : (values.doc ?? (!values.quick && !values['batch-sizes'])),
    workerBase: values['worker-base'],
    batchRounds: rounds(values['batch-rounds'], 'batch-rounds'),
    methods: ALL_METHODS.filter((m) => methods.includes(m)),
    formats: ALL_FORMATS.filter((f) => formats.includes(f)),
    concurrency: ALL_CONCURRENCY.filter((c) => concurrency.includes(c)),
    plan: repeated(values.quick ? QUICK_PLAN : FULL_PLAN, rounds(values['edit-rounds'], 'edit-rounds')),
    editParts,
    admission: { ...ADMISSION[values.quick ? 'quick' : 'full'], base: values['admission-base'] },
    // the admission block alone is written by a run of that part that is not quick
    writeAdmissionDoc: values['no-doc'] ? false : (values.doc ?? (!values.quick && editParts.includes('admission'))),
    vision: visionPlan(values),
    scene: SCENE[values.quick ? 'quick' : 'full'],
    outpaint: {
      photos: values.quick ? 2 : Infinity,
      before: values['outpaint-before'],
      gallery: Boolean(values['outpaint-gallery']),
    },
    // the outpaint block: a run of that suite that is not quick
    writeOutpaintDoc: values['no-doc'] ? false : (values.doc ?? !values.quick),
    // the scene block: a run of that suite that is not quick
    writeSceneDoc: values['no-doc'] ? false : (values.doc ?? !values.quick),
    soakMinutes: soakMinutes(values),
    memoryBase: values['memory-base'],
    // the soak block: a run of its full length (10 minutes or more) that is not quick
    writeSoakDoc: values['no-doc']
      ? false
      : (values.doc ?? (!values.quick && soakMinutes(values) >= SOAK_MINUTES.full)),
    // the vision block: a run of that suite with its defaults (whether the reference ran is checked at the end)
    writeVisionDoc: values['no-doc']
      ? false
      : (values.doc ?? (!values.quick && !values['vision-runs'] && !values['no-imgly'])),
    // the memory block: a run that is not quick
    writeMemoryDoc: values['no-doc'] ? false : (values.doc ?? !values.quick),
    docForced: values.doc === true && !values['no-doc'],
    avifTuneRuns: values.quick ? AVIF_TUNE_RUNS.quick : AVIF_TUNE_RUNS.full,
    quick: values.quick,
    quiet: { ...QUIET, maxWaitMs: waitSeconds(values['max-wait']) * 1000 },
    main: values.main,
    workerMain: values['worker-main'],
    serviceNodeArgs: (values['service-node-args'] ?? startNodeArgs('start')).split(' ').filter(Boolean),
    workerNodeArgs: (values['worker-node-args'] ?? startNodeArgs('start:worker')).split(' ').filter(Boolean),
    json: values.json,
    writeDoc: values['no-doc'] ? false : (values.doc ?? full),
    full,
  };
}

/** The vision suite's plan: --quick or full, `--vision-runs=N[,M]`, `--no-imgly`, `--vision-before=PATH`. */
function visionPlan(values) {
  const plan = {
    ...VISION[values.quick ? 'quick' : 'full'],
    imgly: !values['no-imgly'],
    before: values['vision-before'],
  };
  if (values['vision-runs']) {
    const runs = values['vision-runs'].split(',').map(Number);
    if (runs.length > 2 || !runs.every((n) => Number.isInteger(n) && n >= 1 && n <= 1000)) {
      throw new Error(`--vision-runs: "${values['vision-runs']}" is not N or N,M (1..1000)`);
    }
    plan.runs = runs[0];
    plan.bigRuns = runs[1] ?? runs[0];
  }
  return plan;
}

/** `--soak-minutes=N`: 1..120 minutes; default 10, or 1 with --quick. */
function soakMinutes(values) {
  if (values['soak-minutes'] === undefined) return SOAK_MINUTES[values.quick ? 'quick' : 'full'];
  const minutes = Number(values['soak-minutes']);
  if (!Number.isFinite(minutes) || minutes < 0.5 || minutes > 120) {
    throw new Error(`--soak-minutes: "${values['soak-minutes']}" is not 0.5..120 minutes`);
  }
  return minutes;
}

/** `--batch-rounds=N`, `--edit-rounds=N`: 1..20. */
function rounds(value, flag) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 20) throw new Error(`--${flag}: "${value}" is not 1..20`);
  return n;
}

/** The edit plan with each format's rounds (and so its requests) `times` over: `--edit-rounds`. */
function repeated(plan, times) {
  return Object.fromEntries(
    Object.entries(plan).map(([format, { measured, rounds }]) => [
      format,
      { measured: measured * times, rounds: rounds * times },
    ]),
  );
}

/** `--batch-sizes=500,5000`: two counts, the second a multiple of the first (it is that many copies). */
function batchSizeList(value) {
  const sizes = value.split(',').map(Number);
  if (sizes.length !== 2 || !sizes.every((n) => Number.isInteger(n) && n >= 1) || sizes[1] % sizes[0] !== 0) {
    throw new Error(`--batch-sizes: "${value}" is not two counts N,M with M a multiple of N`);
  }
  return sizes;
}

/**
 * The node options an npm script (`start`, `start:worker`) gives its process (between `node` and the entry
 * file), so that the benchmark measures the service as it is run, from the one place they are set.
 */
function startNodeArgs(script) {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const match = /\bnode\s+(.*?)\s*dist\//.exec(pkg.scripts[script] ?? '');
  return match ? match[1] : '';
}
