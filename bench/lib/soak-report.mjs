import { machineTable } from './report.mjs';
import { percentile } from './soak-bench.mjs';

/** "Flat": the mean RSS of the run's last fifth within this factor of its second fifth's (minutes 8-10 vs 2-4). */
const FLAT_LIMIT = 1.1;
/** "Flat" for big tasks: peak API RSS reading 50,000 results within this factor of the peak reading 5,000. */
const BIG_TASK_LIMIT = 1.25;

const MiB = 2 ** 20;
const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const mib = (bytes) => fixed(bytes / MiB, 0);
const mean = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN);

/** RSS of `label` in the samples taken between `from` and `to` seconds. */
const between = (samples, label, from, to) =>
  samples.filter((s) => s.at >= from && s.at < to && Number.isFinite(s[label])).map((s) => s[label]);

/** The growth of each process: mean RSS in the last fifth of the run over the mean in its second fifth. */
export function growth(samples, label, minutes) {
  const fifth = (minutes * 60) / 5;
  return mean(between(samples, label, 4 * fifth, 5 * fifth + 60)) / mean(between(samples, label, fifth, 2 * fifth));
}

/** RSS per minute, min-max, a column per process. */
function rssTable(samples, labels, minutes) {
  const rows = [`| Minute | ${labels.map((l) => `${l} RSS min-max (MiB)`).join(' | ')} |`];
  rows.push(`| ---: | ${labels.map(() => '---:').join(' | ')} |`);
  for (let minute = 0; minute < Math.ceil(minutes); minute++) {
    const cells = labels.map((label) => {
      const values = between(samples, label, minute * 60, (minute + 1) * 60);
      return values.length ? `${mib(Math.min(...values))}-${mib(Math.max(...values))}` : '-';
    });
    rows.push(`| ${minute + 1} | ${cells.join(' | ')} |`);
  }
  return rows.join('\n');
}

/** Requests, p50 and p99 by kind, and the answers that were not 200 by status. */
function requestTable(latencies, statuses, seconds) {
  const rows = ['| Request | n | per s | p50 ms | p99 ms | not 200 |', '| --- | ---: | ---: | ---: | ---: | --- |'];
  for (const [kind, ms] of [...latencies].sort((a, b) => a[0].localeCompare(b[0]))) {
    const bad = [...statuses]
      .filter(([key]) => key.startsWith(`${kind} `) && !key.endsWith(' 200'))
      .map(([key, count]) => `${key.slice(kind.length + 1)}: ${count}`);
    rows.push(
      `| ${kind} | ${ms.length} | ${fixed(ms.length / seconds, 2)} | ${fixed(percentile(ms, 0.5), 0)} | ` +
        `${fixed(percentile(ms, 0.99), 0)} | ${bad.join(', ') || '-'} |`,
    );
  }
  return rows.join('\n');
}

/** Errors by status over every kind: `200: 12000, 503: 3`. */
function statusLine(statuses) {
  const by = new Map();
  for (const [key, count] of statuses) {
    const status = key.split(' ').pop();
    by.set(status, (by.get(status) ?? 0) + count);
  }
  return [...by]
    .sort()
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
}

function memoryTable(rows) {
  const lines = [
    '| Build | Results | Body (MB) | Reads | Median read (ms) | API RSS before (MiB) | Peak while reading (MiB) | Peak / peak with 5,000 |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const row of rows) {
    const small = rows.find((other) => other.build === row.build);
    lines.push(
      `| ${row.build} | ${row.count} | ${fixed(row.bytes / 1e6, 1)} | ${row.reads} | ${fixed(row.medianMs, 0)} | ` +
        `${mib(row.before)} | ${mib(row.peak)} | ${fixed(row.peak / small.peak, 2)} |`,
    );
  }
  return lines.join('\n');
}

/** The targets as sentences with their figures. */
function targets({ memory, samples, labels, minutes }) {
  const lines = [];
  const [small, large] = (memory ?? []).filter((row) => row.build === 'this build');
  if (small && large) {
    const ratio = large.peak / small.peak;
    lines.push(
      `- GET of a task by id keeps the API's memory flat: peak RSS reading ${large.count} results / reading ` +
        `${small.count}: ${fixed(ratio, 2)} (at most ${BIG_TASK_LIMIT}: ${ratio <= BIG_TASK_LIMIT ? 'met' : 'NOT met'}).`,
    );
  }
  for (const label of labels.filter((l) => l !== 's3rver')) {
    const value = growth(samples, label, minutes);
    lines.push(
      `- ${label} RSS flat over the soak: mean of the last fifth / of the second fifth ${fixed(value, 2)} ` +
        `(at most ${FLAT_LIMIT}: ${value <= FLAT_LIMIT ? 'met' : 'NOT met'}).`,
    );
  }
  return lines;
}

/** The generated soak part of docs/benchmarks.md (and of the console output). */
export function renderSoak({ machine, options, seconds, ...run }) {
  const { samples, labels, latencies, statuses, tasks, scaled, minutes, memory } = run;
  const parts = ['## Soak: results of the last full run\n', machineTable(machine), ''];
  parts.push(
    `${minutes} minutes of mixed load on ${scaled ? 'the API and one worker process (PostgreSQL, Redis/BullMQ)' : 'the API alone (embedded mode: SQLite, in-process queue)'}, ` +
      `s3rver and an image origin on 127.0.0.1, three requests in flight at most (bench/lib/soak-bench.mjs). ` +
      `Suite run time ${fixed(seconds / 60, 1)} min.\n`,
  );
  parts.push('### Memory of a task read by id (streamed)\n');
  parts.push(
    'A fresh API per build and size; a finished task of 5,000 or 50,000 results written straight into the ' +
      'database, read to its end again and again, two reads at a time, as many bytes in all for both sizes (the ' +
      'small one ten times as often), so that V8 leaves as much garbage for both; API RSS sampled every 50 ms.\n',
  );
  if (memory) parts.push(memoryTable(memory), '');
  parts.push('### RSS over the soak, per minute\n', rssTable(samples, labels, minutes), '');
  parts.push('### Requests\n', requestTable(latencies, statuses, minutes * 60), '');
  parts.push(`All answers by status: ${statusLine(statuses)}.\n`);
  parts.push(
    `Tasks created ${tasks.created}: DONE ${tasks.done}, ERROR ${tasks.error}, not ended at the end ${tasks.unfinished}; ` +
      `webhooks received ${tasks.webhooks}.\n`,
  );
  parts.push(`### Soak targets\n\n${targets({ memory, samples, labels, minutes }).join('\n')}\n`);
  if (options?.quick || minutes < 10) parts.push('(a short run: the growth ratios mean little)\n');
  return parts.join('\n');
}
