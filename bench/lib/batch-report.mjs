import { machineTable } from './report.mjs';

/** Targets of the batch issue. */
const ONE_WORKER_TARGET = 0.8;
/** Issue 17: one worker against the plain loop on the same S3 store, two images at a time. */
const S3_LOOP_TARGET = 0.9;
const RSS_LIMIT = 2 ** 30;
/** "Not growing": RSS late in the large run within this factor of RSS early in it and of the small run's peak. */
const GROWTH_LIMIT = 1.1;

const MiB = 2 ** 20;
const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const mib = (bytes) => fixed(bytes / MiB, 0);

const find = (runs, kind) => runs.find((run) => run.kind === kind);
const rate = (run) => (run ? run.items / run.seconds : NaN);

/** CPU ms per image by process: `worker1 71, s3rver 9, api 2, client 1`. */
function cpuBy(run) {
  const each = Object.entries(run.cpu?.eachMs ?? {}).filter(([, ms]) => ms > 0);
  return each
    .sort((x, y) => y[1] - x[1])
    .map(([label, ms]) => `${label} ${fixed(ms / run.items, 0)}`)
    .join(', ');
}

/** Peak RSS of the processes that did the work (the workers, else the API or the bench's own process). */
function peakCell(run) {
  const entries = Object.entries(run.peaks ?? {}).filter(([, bytes]) => Number.isFinite(bytes));
  const workers = entries.filter(([label]) => label.startsWith('worker'));
  const shown = workers.length ? [...workers, ...entries.filter(([label]) => label === 'api')] : entries;
  return shown.map(([label, bytes]) => `${label} ${mib(bytes)}`).join(', ') || '-';
}

/**
 * The table: a row per run, img/s against the plain loop one image at a time (the reference) and two
 * at a time (what a loop gets from both cores).
 */
export function batchTable(runs) {
  const reference = rate(find(runs, 'plain-1'));
  const two = rate(find(runs, 'plain-2'));
  const rows = [
    "| Method | Items | Seconds | img/s | vs plain loop | vs loop, 2 at a time | vs S3 loop, 2 at a time | Peak RSS (MiB) | CPU ms/img by process | others' load |",
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |',
  ];
  const s3 = rate(find(runs, 's3-2'));
  for (const run of runs) {
    rows.push(
      `| ${run.label} | ${run.items} | ${fixed(run.seconds, 1)} | ${fixed(rate(run), 2)} | ${fixed(rate(run) / reference, 2)} | ` +
        `${fixed(rate(run) / two, 2)} | ${fixed(rate(run) / s3, 2)} | ` +
        `${peakCell(run)} | ${cpuBy(run)} | ${fixed(run.cpu?.othersCores, 2)} |`,
    );
  }
  return rows.join('\n');
}

/** The worker's memory over the large run: the largest RSS in each fifth of its duration. */
function memoryLine(run) {
  const fifths = run?.fifths?.worker1;
  if (!fifths?.length) return undefined;
  return `Worker RSS over the ${run.items}-item run, largest in each fifth of its time: ${fifths.map((v) => fixed(v, 0)).join(', ')} MiB.`;
}

/** The targets as sentences with their figures. */
export function batchTargets({ input, runs, scaled }) {
  if (!scaled)
    return ['- Scaled mode was not measured (no PostgreSQL or Redis): the targets are for worker processes.'];
  const lines = [];
  const one = rate(find(runs, `1w-${input.count}`)) / rate(find(runs, 'plain-1'));
  lines.push(
    `- One worker at least ${ONE_WORKER_TARGET} of the plain sharp loop: ${fixed(one, 2)} ` +
      `(${one >= ONE_WORKER_TARGET ? 'met' : 'NOT met'}).`,
  );
  const vsS3 = rate(find(runs, `1w-${input.count}`)) / rate(find(runs, 's3-2'));
  lines.push(
    `- 1 worker vs S3 loop, 2 at a time (the same reads and writes on s3rver; issue 17: at least ${S3_LOOP_TARGET}): ` +
      `**${fixed(vsS3, 2)}** (${vsS3 >= S3_LOOP_TARGET ? 'met' : 'NOT met'}).`,
  );
  const two = rate(find(runs, `2w-${input.count}`)) / rate(find(runs, `1w-${input.count}`));
  lines.push(`- Two workers against one (the same ${input.count} photos, the same two cores): ${fixed(two, 2)}.`);
  const small = find(runs, `1w-${input.count}`)?.peaks?.worker1;
  const large = find(runs, `1w-${input.large}`)?.peaks?.worker1;
  const under = Math.max(small, large) < RSS_LIMIT;
  lines.push(
    `- Worker peak RSS under 1 GiB: ${mib(small)} MiB with ${input.count} items, ${mib(large)} MiB with ${input.large} ` +
      `(${under ? 'met' : 'NOT met'}).`,
  );
  lines.push(
    `- Peak with ${input.large} items / peak with ${input.count}: ${fixed(large / small, 2)} (a figure, not the test: ` +
      `the larger run outlasts V8's first full collection, which a short run never reaches; docs/benchmarks.md).`,
  );
  const fifths = find(runs, `1w-${input.large}`)?.fifths?.worker1 ?? [];
  if (fifths.length === 5) {
    const late = Math.max(...fifths.slice(3)) / Math.max(...fifths.slice(0, 3));
    const end = (fifths[4] * MiB) / small;
    const met = late <= GROWTH_LIMIT && end <= GROWTH_LIMIT;
    lines.push(
      `- Not growing with the number of items (each at most ${GROWTH_LIMIT}): the largest RSS of the last two fifths ` +
        `of the ${input.large}-item run / of its first three ${fixed(late, 2)}; its RSS in the last fifth / the ` +
        `${input.count}-item peak ${fixed(end, 2)} (${met ? 'met' : 'NOT met'}).`,
    );
  }
  return lines;
}

/** The generated batch part of docs/benchmarks.md (and of the console output). */
export function renderBatch({ machine, input, runs, scaled, seconds, options }) {
  const parts = ['## Batch: results of the last full run\n', machineTable(machine), ''];
  parts.push(
    `Input: ${input.count} JPEGs (q90) of ${fixed(input.minMp, 1)}-${fixed(input.maxMp, 1)} MP (mean ${fixed(input.meanMp, 1)}), ` +
      `${fixed(input.bytes / 1e6, 0)} MB in all, generated by bench/lib/batch-fixture.mjs; the ${input.large}-item run reads ` +
      `${input.large / input.count} copies of them in sub-folders (recursive). Every method fits each photo into 1024x1024 ` +
      `as JPEG q85 (the edit suite's JPEG case). The tasks read from and write to s3rver on 127.0.0.1 and report ` +
      `completion by webhook; scaled mode on PostgreSQL and Redis (BullMQ), TASK_CONCURRENCY at its default ` +
      `(${machine.cores}, the cores). Suite run time ${fixed(seconds / 60, 1)} min.\n`,
  );
  parts.push(batchTable(runs), '');
  const memory = memoryLine(find(runs, `1w-${input.large}`));
  if (memory) parts.push(memory, '');
  parts.push(`### Batch targets\n\n${batchTargets({ input, runs, scaled }).join('\n')}\n`);
  if (options?.quick) parts.push('(a --quick run: the figures mean nothing)\n');
  return parts.join('\n');
}

const median = (values) => {
  const sorted = values.filter(Number.isFinite).sort((x, y) => x - y);
  return sorted.length ? (sorted[(sorted.length - 1) >> 1] + sorted[sorted.length >> 1]) / 2 : NaN;
};

/** `--worker-base`: the rounds' median img/s and CPU ms per image of each method, and the ratios of the medians. */
export function renderComparison({ input, runs }) {
  const kinds = [...new Set(runs.map((run) => run.kind))];
  const rows = [
    '| Method | Rounds | median img/s | median CPU ms/img (its own process) |',
    '| --- | ---: | ---: | ---: |',
  ];
  const rates = {};
  for (const kind of kinds) {
    const mine = runs.filter((run) => run.kind === kind);
    rates[kind] = median(mine.map(rate));
    const own = median(mine.map((run) => (run.cpu?.eachMs?.worker1 ?? run.cpu?.eachMs?.client ?? NaN) / run.items));
    rows.push(`| ${mine[0].label} | ${mine.length} | ${fixed(rates[kind], 2)} | ${fixed(own, 1)} |`);
  }
  const loop = rates['s3-2'];
  const mine = rates[`1w-${input.count}`];
  const base = rates[`1w-base-${input.count}`];
  return [
    `### Batch, side by side (${input.count} photos per run)`,
    '',
    rows.join('\n'),
    '',
    `- 1 worker vs S3 loop, 2 at a time: this build **${fixed(mine / loop, 2)}** (target ${S3_LOOP_TARGET}: ` +
      `${mine / loop >= S3_LOOP_TARGET ? 'met' : 'NOT met'}), base build ${fixed(base / loop, 2)}; this / base ${fixed(mine / base, 2)}.`,
  ].join('\n');
}
