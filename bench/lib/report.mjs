import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** The generated blocks of docs/benchmarks.md, each between its own markers: `edit`, `batch`, `admission`, `vision`, `scene`, `soak`. */
const MARKERS = {
  edit: ['<!-- bench:results:start -->', '<!-- bench:results:end -->'],
  batch: ['<!-- bench:batch:start -->', '<!-- bench:batch:end -->'],
  admission: ['<!-- bench:admission:start -->', '<!-- bench:admission:end -->'],
  vision: ['<!-- bench:vision:start -->', '<!-- bench:vision:end -->'],
  scene: ['<!-- bench:scene:start -->', '<!-- bench:scene:end -->'],
  outpaint: ['<!-- bench:outpaint:start -->', '<!-- bench:outpaint:end -->'],
  soak: ['<!-- bench:soak:start -->', '<!-- bench:soak:end -->'],
  memory: ['<!-- bench:memory:start -->', '<!-- bench:memory:end -->'],
};
const FORMAT_TITLES = {
  jpeg: 'JPEG (quality 85, progressive)',
  webp: 'WEBP (quality 75)',
  avif: "AVIF (quality 50; the service and (a), (d) with tune 'ssim')",
};
const JPEG_TARGET = 0.85;
/** Issue 17: the service at concurrency 2 against the leanest server doing the same work (f). */
const LEAN_TARGET = 0.95;

const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** One table per format: a row per method and concurrency, throughput relative to (a) at the same concurrency. */
export function formatTable(format, results, methods, concurrency) {
  const rows = [
    `| Method | Concurrency | img/s | p50 ms | p95 ms | img/s vs (a) | n | CPU ms/img | others' load |`,
    `| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
  ];
  for (const method of methods) {
    for (const c of concurrency) {
      const cell = results[format]?.[method.id]?.[c];
      const reference = results[format]?.a?.[c];
      if (!cell) continue;
      const ratio = reference ? cell.throughput / reference.throughput : NaN;
      rows.push(
        `| (${method.id}) ${method.label} | ${c} | ${fixed(cell.throughput, 2)} | ${fixed(cell.p50, 0)} | ` +
          `${fixed(cell.p95, 0)} | ${fixed(ratio, 2)} | ${cell.count} | ${fixed(cell.cpuMsPerImage, 0)} | ` +
          `${fixed(cell.othersCores, 2)} |`,
      );
    }
  }
  return `### ${FORMAT_TITLES[format]}\n\n${rows.join('\n')}\n`;
}

const ratio = (results, format, x, y, c) => {
  const top = results[format]?.[x]?.[c];
  const bottom = results[format]?.[y]?.[c];
  return top && bottom ? top.throughput / bottom.throughput : NaN;
};

/** `(b) 80 = server 75 + client 3 + origin 2`: all bench processes, and the ones that did the work. */
function cpuLine(id, cell) {
  if (!Number.isFinite(cell?.cpuMsPerImage)) return undefined;
  const by = cell.cpuMsPerImageBy ?? {};
  const inProcess = id === 'a' || id === 'e';
  const server = inProcess ? by.client : by[id];
  const parts = inProcess
    ? []
    : [`server ${fixed(server, 0)}`, `client ${fixed(by.client, 0)}`, `origin ${fixed(by.origin, 0)}`];
  return `(${id}) ${fixed(cell.cpuMsPerImage, 0)}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/** The issue's targets and the floor, as sentences with the figures in them. */
export function targetLines(results, formats, methods) {
  const lines = [];
  const jpeg = ratio(results, 'jpeg', 'b', 'a', 2);
  if (Number.isFinite(jpeg)) {
    const verdict = jpeg >= JPEG_TARGET ? 'met' : 'NOT met';
    lines.push(
      `- JPEG at concurrency 2, service (b) / in-process (a): **${fixed(jpeg, 2)}** (target >= ${JPEG_TARGET}: ${verdict}).`,
    );
  }
  const vsLean = ratio(results, 'jpeg', 'b', 'f', 2);
  if (Number.isFinite(vsLean)) {
    const verdict = vsLean >= LEAN_TARGET ? 'met' : 'NOT met';
    lines.push(
      `- JPEG at concurrency 2, service (b) / lean server (f), the service's own cost: **${fixed(vsLean, 2)}** ` +
        `(target >= ${LEAN_TARGET}: ${verdict}).`,
    );
  }
  const vsIpx = formats.map((f) => [f, ratio(results, f, 'b', 'c', 2)]).filter(([, r]) => Number.isFinite(r));
  if (vsIpx.length > 0) {
    const verdict = vsIpx.every(([, r]) => r > 1) ? 'ahead in every format' : 'NOT ahead in every format';
    lines.push(
      `- Service (b) / ipx (c) at concurrency 2: ${vsIpx.map(([f, r]) => `${f} **${fixed(r, 2)}**`).join(', ')} (target > 1: ${verdict}).`,
    );
  }
  for (const [x, y, what] of [
    ['d', 'a', 'bare server (d) / in-process (a), the floor'],
    ['b', 'd', 'service (b) / bare server (d)'],
    ['f', 'd', 'lean server (f) / bare server (d), what keeping the result costs'],
    ['e', 'a', 'in-process with threads shared (e) / in-process with sharp defaults (a)'],
    ['b', 'e', 'service (b) / in-process with threads shared as the service shares them (e)'],
  ]) {
    const figures = formats.map((f) => [f, ratio(results, f, x, y, 2)]).filter(([, r]) => Number.isFinite(r));
    if (figures.length > 0) {
      lines.push(`- At concurrency 2, ${what}: ${figures.map(([f, r]) => `${f} ${fixed(r, 2)}`).join(', ')}.`);
    }
  }
  for (const format of formats) {
    const cpu = methods.map((m) => cpuLine(m.id, results[format]?.[m.id]?.[2])).filter(Boolean);
    if (cpu.length > 1) lines.push(`- CPU ms per ${format} image at concurrency 2: ${cpu.join('; ')}.`);
  }
  return lines.join('\n');
}

export function machineTable(machine) {
  const ipxSharp = machine.ipxSharp
    ? `sharp ${machine.ipxSharp.sharp}, libvips ${machine.ipxSharp.vips}, aom ${machine.ipxSharp.aom}`
    : 'unknown';
  const rows = [
    ['Date', machine.date],
    ['CPU', `${machine.cpu} @ ${fixed(machine.mhz, 0)} MHz, ${machine.cores} cores available`],
    ['Memory', `${fixed(machine.memoryGiB, 1)} GiB`],
    ['OS', machine.os],
    ['Node', machine.node],
    [
      'sharp (a, b, d, e, f)',
      `${machine.sharp}, libvips ${machine.vips}, mozjpeg ${machine.mozjpeg}, libwebp ${machine.webp}, aom ${machine.aom}, libheif ${machine.heif}`,
    ],
    ['ipx (c)', `${machine.ipx} on its own ${ipxSharp}`],
    [
      'Threads',
      `sharp.concurrency() ${machine.sharpConcurrency} (libvips threads per image) in every process, ipx's sharp set to the ` +
        `same; UV_THREADPOOL_SIZE ${machine.uvThreadpool}; MALLOC_ARENA_MAX ${machine.mallocArenaMax}`,
    ],
    ['Load average at start', machine.loadAverage.map((l) => l.toFixed(2)).join(', ')],
  ];
  return ['| | |', '| --- | --- |', ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n');
}

/** The generated part of docs/benchmarks.md (and of the console output). */
export function renderResults({
  machine,
  options,
  methods,
  results,
  sizes,
  avif,
  input,
  seconds,
  waitedMs,
  othersCores,
}) {
  const parts = [`## Results of the last full run\n`, machineTable(machine), ''];
  parts.push(
    `Input: ${input.width}x${input.height} JPEG, ${fixed(input.bytes / 1e6, 2)} MB. ` +
      `Requests measured per cell: ${options.formats.map((f) => `${f} ${options.plan[f].measured} in ${options.plan[f].rounds} round(s)`).join(', ')}; ` +
      `run time ${fixed(seconds / 60, 1)} min, of which ${fixed(waitedMs / 60000, 1)} min waiting (at most ` +
      `${options.quiet.maxWaitMs / 1000} s before each measurement, ${options.quiet.budgetMs / 60000} min in all) for other processes to use at most ` +
      `${options.quiet.maxCores} cores. Other processes used ${fixed(othersCores, 2)} of the ${machine.cores} cores on average ` +
      `while the cells ran.\n`,
  );
  for (const format of options.formats) parts.push(formatTable(format, results, methods, options.concurrency));
  parts.push(`### Targets\n\n${targetLines(results, options.formats, methods)}\n`);
  const sizeRows = options.formats.map(
    (f) => `| ${f} | ${methods.map((m) => (sizes[m.id]?.[f] ? fixed(sizes[m.id][f] / 1024, 1) : 'n/a')).join(' | ')} |`,
  );
  parts.push(
    `### Output sizes (KiB)\n\n| Format | ${methods.map((m) => `(${m.id})`).join(' | ')} |\n| --- |${methods.map(() => ' ---: |').join('')}\n${sizeRows.join('\n')}\n`,
  );
  if (avif) {
    const rows = avif.map((v) => `| ${v.label} | ${fixed(v.ms, 0)} | ${fixed(v.bytes / 1024, 1)} |`);
    parts.push(
      `### AVIF quality 50: tune 'ssim' against 'auto' (encode only, 1024x768, one at a time, median of ${options.avifTuneRuns})\n\n` +
        `| Encoder | ms | KiB |\n| --- | ---: | ---: |\n${rows.join('\n')}\n`,
    );
  }
  return parts.join('\n');
}

/**
 * Puts `section` between the `block` markers (`edit`, `batch`) of `path`, keeping the text around them; a file
 * without those markers gets them, with the section, at its end (a missing file starts as `heading`).
 */
export function writeResults(path, section, heading, block = 'edit') {
  const [START, END] = MARKERS[block];
  const marked = `${START}\n${section}\n${END}`;
  const current = existsSync(path) ? readFileSync(path, 'utf8') : heading;
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const next =
    start >= 0 && end > start
      ? `${current.slice(0, start)}${marked}${current.slice(end + END.length)}`
      : `${current.trimEnd()}\n\n${marked}\n`;
  writeFileSync(path, next);
}
