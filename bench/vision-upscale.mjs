/**
 * The super-resolution suite (issue 14): per upscale mode (and polish), the time of a 2x upscale of a 0.25 MP
 * image (500 x 500 -> 1000 x 1000, the network plus the exact Lanczos resize the pipeline does) and the peak RSS of
 * the process that ran it; with `--quality`, PSNR and SSIM of downscale-then-upscale against the original, next to
 * Lanczos, on the photo fixtures (test/fixtures/photos) and crops of the drawn samples (libs/storage/samples).
 *
 * Runs the built networks (dist/libs/vision: `npm run build` first), each mode in a fresh child process so that
 * its peak RSS (VmHWM) is its own. `node bench/vision-upscale.mjs [--runs=3] [--modes=photo,faces] [--quality]
 * [--json=PATH]`; exported `runVisionUpscale(options)` answers the same figures for bench/run.mjs.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const ROOT = resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
export const MODES = ['photo', 'smart_enhance', 'digital_art', 'faces', 'smart_resize', 'polish'];
const PHOTOS = join(ROOT, 'test/fixtures/photos');
const SAMPLES = join(ROOT, 'libs/storage/samples');
const FIXTURES = {
  astronaut: [join(PHOTOS, 'astronaut.png')],
  coffee: [join(PHOTOS, 'coffee.png')],
  chelsea: [join(PHOTOS, 'chelsea.png')],
  rocket: [join(PHOTOS, 'rocket.png')],
  text: [join(PHOTOS, 'text.png')],
  mug: [join(SAMPLES, 'mug.jpg'), { left: 200, top: 150, width: 240, height: 240 }],
  plant: [join(SAMPLES, 'plant.jpg'), { left: 180, top: 180, width: 240, height: 240 }],
  bottle: [join(SAMPLES, 'bottle.png'), { left: 120, top: 200, width: 240, height: 240 }],
};

/** The service's resolver with its defaults, or with SUPER_RESOLUTION_* settings from this process's env. */
function resolver() {
  const { loadConfig } = require(join(ROOT, 'dist/libs/common/src/index.js'));
  const { EsrganSuperResolver } = require(join(ROOT, 'dist/libs/vision/src/index.js'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('SUPER_RESOLUTION_')));
  return EsrganSuperResolver.fromConfig(loadConfig(env));
}

/** The network's output for `rgb` resized to exactly width x height with Lanczos, as the pipeline does. */
async function upscaled(sr, rgb, mode, width, height) {
  const factor = Math.max(width / rgb.width, height / rgb.height);
  const out = await sr.upscale({ ...rgb, data: rgb.data.slice() }, mode, factor);
  if (out.width === width && out.height === height) return Buffer.from(out.data);
  const raw = { raw: { width: out.width, height: out.height, channels: 3 } };
  return sharp(Buffer.from(out.data), raw).resize(width, height, { kernel: 'lanczos3', fit: 'fill' }).raw().toBuffer();
}

/** Child: warm-up, then `runs` timed 2x upscales of a 500 x 500 photo; its own VmHWM at the end. */
async function timeMode(mode, runs) {
  const sr = resolver();
  const network = sr.sizeFor(mode, 500 * 500);
  const data = await sharp(join(PHOTOS, 'astronaut.png'))
    .resize(500, 500, { kernel: 'lanczos3' })
    .removeAlpha()
    .raw()
    .toBuffer();
  const rgb = { data: new Uint8Array(data), width: 500, height: 500, channels: 3 };
  const started = performance.now();
  await sr.runner.load();
  const loadMs = performance.now() - started;
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    if (mode === 'polish') {
      const out = await sr.upscale({ ...rgb, data: rgb.data.slice() }, 'polish', 2);
      await sharp(Buffer.from(out.data), { raw: { width: out.width, height: out.height, channels: 3 } })
        .resize(500, 500, { kernel: 'lanczos3' })
        .raw()
        .toBuffer();
    } else await upscaled(sr, rgb, mode, 1000, 1000);
    times.push(performance.now() - t);
  }
  await sr.runner.close();
  const status = readFileSync('/proc/self/status', 'utf8');
  const peakKiB = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
  times.sort((a, b) => a - b);
  return {
    mode,
    network,
    loadMs,
    p50Ms: times[Math.floor(times.length / 2)],
    minMs: times[0],
    maxMs: times.at(-1),
    peakMiB: peakKiB / 1024,
  };
}

function ssim(a, b, width, height) {
  const r = 5;
  const w = Array.from({ length: 2 * r + 1 }, (_, i) => Math.exp(-((i - r) ** 2) / 4.5));
  const sum = w.reduce((x, y) => x + y, 0);
  const k = w.map((v) => v / sum);
  const luma = (p) =>
    Float64Array.from(
      { length: width * height },
      (_, i) => 0.299 * p[3 * i] + 0.587 * p[3 * i + 1] + 0.114 * p[3 * i + 2],
    );
  const blur = (plane) => {
    const across = new Float64Array(plane.length);
    const out = new Float64Array(plane.length);
    for (let y = 0; y < height; y++)
      for (let x = r; x < width - r; x++)
        for (let i = -r; i <= r; i++) across[y * width + x] += k[i + r] * plane[y * width + x + i];
    for (let y = r; y < height - r; y++)
      for (let x = r; x < width - r; x++)
        for (let i = -r; i <= r; i++) out[y * width + x] += k[i + r] * across[(y + i) * width + x];
    return out;
  };
  const x = luma(a);
  const y = luma(b);
  const [mx, my, xx, yy, xy] = [x, y, x.map((v) => v * v), y.map((v) => v * v), x.map((v, i) => v * y[i])].map(blur);
  const c1 = 6.5025;
  const c2 = 58.5225;
  let total = 0;
  let n = 0;
  for (let row = r; row < height - r; row++) {
    for (let col = r; col < width - r; col++) {
      const i = row * width + col;
      const cov = xy[i] - mx[i] * my[i];
      total +=
        ((2 * mx[i] * my[i] + c1) * (2 * cov + c2)) /
        ((mx[i] ** 2 + my[i] ** 2 + c1) * (xx[i] - mx[i] ** 2 + yy[i] - my[i] ** 2 + c2));
      n++;
    }
  }
  return total / n;
}

function psnr(a, b) {
  let squares = 0;
  for (let i = 0; i < a.length; i++) squares += (a[i] - b[i]) ** 2;
  return 10 * Math.log10((255 * 255 * a.length) / squares);
}

/** Child: every mode on every fixture, downscaled by `factor` (Lanczos) and enlarged back to its size. */
async function quality(factors) {
  const sr = resolver();
  const rows = [];
  for (const [name, [file, crop]] of Object.entries(FIXTURES)) {
    let source = sharp(file).flatten({ background: '#ffffff' }).toColourspace('srgb');
    if (crop) source = source.extract(crop);
    const { data: original, info } = await source.removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const { width, height } = info;
    for (const factor of factors) {
      const small = await sharp(original, { raw: { width, height, channels: 3 } })
        .resize(Math.round(width / factor), Math.round(height / factor), { kernel: 'lanczos3', fit: 'fill' })
        .raw()
        .toBuffer({ resolveWithObject: true });
      const rgb = { data: new Uint8Array(small.data), width: small.info.width, height: small.info.height, channels: 3 };
      const lanczos = await sharp(small.data, { raw: { ...small.info, channels: 3 } })
        .resize(width, height, { kernel: 'lanczos3', fit: 'fill' })
        .raw()
        .toBuffer();
      const row = { fixture: name, factor, lanczos: [psnr(lanczos, original), ssim(lanczos, original, width, height)] };
      for (const mode of MODES.filter((m) => m !== 'polish')) {
        const out = await upscaled(sr, rgb, mode, width, height);
        row[mode] = [psnr(out, original), ssim(out, original, width, height)];
      }
      rows.push(row);
      console.error(JSON.stringify(row));
    }
  }
  await sr.runner.close();
  return rows;
}

function inChild(args, env = {}) {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', ...args], {
    cwd: ROOT,
    env: { ...process.env, MALLOC_ARENA_MAX: '2', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out.toString());
}

/**
 * Each mode's 2x 0.25 MP timing and peak RSS (each in a fresh process, the service's defaults: every mode runs slim
 * at 0.25 MP), then the medium network forced (`faces` with SUPER_RESOLUTION_MEDIUM_MAX_PIXELS raised), then the
 * quality rows when asked.
 */
export function runVisionUpscale({ runs = 3, modes = MODES, withQuality = false, factors = [2, 4] } = {}) {
  const timings = modes.map((mode) => inChild(['--time', mode, `--runs=${runs}`]));
  timings.push(inChild(['--time', 'faces', `--runs=${runs}`], { SUPER_RESOLUTION_MEDIUM_MAX_PIXELS: '1000000000' }));
  const rows = withQuality ? inChild(['--quality', `--factors=${factors.join(',')}`]) : undefined;
  return { timings, quality: rows };
}

async function main() {
  const args = process.argv.slice(2);
  const value = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1];
  if (args[0] === '--child') {
    const result =
      args[1] === '--time'
        ? await timeMode(args[2], Number(value('runs') ?? 3))
        : await quality((value('factors') ?? '2,4').split(',').map(Number));
    process.stdout.write(JSON.stringify(result));
    return;
  }
  const modes = value('modes')?.split(',') ?? MODES;
  const result = runVisionUpscale({ runs: Number(value('runs') ?? 3), modes, withQuality: args.includes('--quality') });
  for (const t of result.timings) {
    console.log(
      `${t.mode.padEnd(14)} ${t.network.padEnd(6)} 2x 500x500 -> 1000x1000: p50 ${(t.p50Ms / 1000).toFixed(2)} s (min ${(t.minMs / 1000).toFixed(2)}, max ${(t.maxMs / 1000).toFixed(2)}), load+warm-up ${(t.loadMs / 1000).toFixed(1)} s, peak RSS ${t.peakMiB.toFixed(0)} MiB`,
    );
  }
  const json = value('json');
  if (json) writeFileSync(json, JSON.stringify(result, null, 2));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
