// Plate detection bench: the PP-OCRv4 text detector and the whole plate blur, on the built service (npm run build
// first). `node bench/vision-plates.mjs` prints a table; bench/run.mjs may call runPlatesBench() for the rows.
// Each configuration runs in a fresh child process (MALLOC_ARENA_MAX=2, like the service), so that its peak RSS
// (VmHWM) is its own: a 12 MP JPEG with two plates; the text detector's first use (verify, load, warm-up); warm
// detections at the working size (sharp's scale-down included, as the pipeline step does it); the whole edit
// (decode, detect, blur, JPEG encode) with plate blur against the same edit without it.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const RUNS = 7;

/** A 4000 x 3000 JPEG: a photo of the test set's backgrounds with two plates and a line of other text. */
async function photo(sharp) {
  const W = 4000;
  const H = 3000;
  const plate = (x, y, w, text, fill) =>
    `<g transform="translate(${x} ${y}) rotate(-4)"><rect width="${w}" height="${w / 4.7}" rx="10" fill="${fill}" stroke="#111" stroke-width="${w / 90}"/>` +
    `<text x="${w / 2}" y="${w / 4.7 / 2 + w / 4.7 / 4}" font-family="DejaVu Sans Mono" font-weight="bold" font-size="${w / 8}" text-anchor="middle" fill="#111">${text}</text></g>`;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">` +
    plate(600, 1900, 700, 'AB-123-CD', '#f7f7f2') +
    plate(2600, 800, 520, 'KZ 4928', '#f2c500') +
    `<text x="300" y="400" font-family="DejaVu Sans Mono" font-size="70" fill="#fafafa">a line of text that is not a plate at all, far too long</text></svg>`;
  const background = readFileSync(resolve(ROOT, 'test/fixtures/plate-backgrounds/coffee.jpg'));
  return sharp(background)
    .resize(W, H, { fit: 'cover' })
    .composite([{ input: Buffer.from(svg) }])
    .jpeg({ quality: 88 })
    .toBuffer();
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

function peakMiB() {
  const status = readFileSync('/proc/self/status', 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024;
}

/** One configuration, in this process: the figures as JSON on stdout. */
async function child(maxSide) {
  const { default: sharp } = await import('sharp');
  const dist = (path) => import(resolve(ROOT, 'dist', path));
  const { loadConfig } = await dist('libs/common/src/index.js');
  const { PpOcrTextDetector } = await dist('libs/vision/src/text/text-detection.model.js');
  const { ImagePipeline } = await dist('libs/image-pipeline/src/index.js');
  const config = loadConfig({ TEXT_DETECTION_MAX_SIDE: String(maxSide) });
  const detector = PpOcrTextDetector.fromConfig(config);
  const pipeline = new ImagePipeline(config, undefined, undefined, detector);
  const jpeg = await photo(sharp);
  const baseline = peakMiB();
  let t = performance.now();
  await detector.runner.verify();
  await detector.runner.load();
  const firstUse = performance.now() - t;
  const detections = [];
  let regions = 0;
  for (let i = 0; i < RUNS; i++) {
    t = performance.now();
    const { data, info } = await sharp(jpeg)
      .resize(maxSide, maxSide, { fit: 'inside' })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    regions = (await detector.detect({ data, width: info.width, height: info.height, channels: 3 })).length;
    detections.push(performance.now() - t);
  }
  const edit = async (plan) => {
    const times = [];
    for (let i = 0; i < RUNS; i++) {
      t = performance.now();
      const probe = await pipeline.probe(jpeg);
      await pipeline.run(jpeg, probe, plan);
      times.push(performance.now() - t);
    }
    return times;
  };
  const encode = { format: 'jpeg', quality: 85, progressive: false };
  const withBlur = await edit({ blurPlates: {}, encode, colour: { space: 'auto' } });
  const without = await edit({ encode, colour: { space: 'auto' } });
  await detector.runner.close();
  await pipeline.onApplicationShutdown();
  const ms = (values) => ({ p50: percentile(values, 50), p95: percentile(values, 95) });
  process.stdout.write(
    JSON.stringify({
      maxSide,
      regions,
      firstUseMs: firstUse,
      detect: ms(detections),
      editWithBlur: ms(withBlur),
      editWithout: ms(without),
      baselineMiB: baseline,
      peakMiB: peakMiB(),
    }),
  );
}

/** Both working sizes, each in its own child process; answers their figures. */
export function runPlatesBench(sides = [960, 1280]) {
  return sides.map((maxSide) => {
    const run = spawnSync(process.execPath, [import.meta.filename, '--child', String(maxSide)], {
      env: { ...process.env, MALLOC_ARENA_MAX: '2', LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    if (run.status !== 0) throw new Error(`plate bench at ${maxSide} failed: ${run.stderr}`);
    return JSON.parse(run.stdout.trim().split('\n').pop());
  });
}

/** The figures as a Markdown table. */
export function platesTable(results) {
  const f = (n) => n.toFixed(0);
  const lines = [
    '| Working size (TEXT_DETECTION_MAX_SIDE) | First use (verify, load, warm) | Detection p50 / p95 (scale-down included) | 12 MP JPEG edit with plate blur p50 / p95 | The same edit without | Peak RSS (process) |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.maxSide} | ${f(r.firstUseMs)} ms | ${f(r.detect.p50)} / ${f(r.detect.p95)} ms | ${f(r.editWithBlur.p50)} / ${f(r.editWithBlur.p95)} ms | ${f(r.editWithout.p50)} / ${f(r.editWithout.p95)} ms | ${f(r.peakMiB)} MiB (${f(r.baselineMiB)} before the model) |`,
    );
  }
  return lines.join('\n');
}

if (process.argv[2] === '--child') {
  await child(Number(process.argv[3]));
} else if (import.meta.filename === resolve(process.argv[1] ?? '')) {
  process.stdout.write(`${platesTable(runPlatesBench())}\n`);
}
