// The memory suite (only when named): peak RSS of one edit through the service per input format and size, each
// measurement in a fresh service process, beside the service's own estimate of that edit (the one admission
// holds in EDIT_MEMORY_BYTES). See bench/README.md.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { random } from '../../test/fixtures/seeded-random.mjs';
import { memory, post, uploadBody } from './admission-bench.mjs';
import { sleep, startService, stop } from './processes.mjs';

export const MEMORY_FORMATS = ['jpeg', 'png', 'webp', 'tiff', 'gif', 'bmp', 'avif', 'heic'];
const SIZES = {
  full: [
    { label: '10 MP', width: 3200, height: 3125 },
    { label: '25 MP', width: 5000, height: 5000 },
    { label: '49 MP', width: 7000, height: 7000 }, // under MAX_INPUT_PIXELS' default of 50 MP
  ],
  quick: [{ label: '1 MP', width: 1000, height: 1000 }],
};
/** The two edits: the whole image re-encoded (every format decodes it all), and a fit into 1024x1024. */
const EDITS = {
  reencode: { output: { format: 'jpeg' } },
  fit: { operations: { resizing: { width: 1024, height: 1024, fit: 'bounds' } }, output: { format: 'jpeg' } },
};
/** Large enough for a 49 MP BMP (147 MB) in one upload; the inputs' memory is part of what is measured. */
const MAX_BYTES = String(256 * 1024 * 1024);
const MIB = 1024 * 1024;

/** A smooth image: a 16 x 16 field of seeded colours, enlarged (encoders are quick on it, decoders are not). */
async function smoothPixels(width, height) {
  const rand = random(0x6d656d);
  const field = Buffer.from(Array.from({ length: 16 * 16 * 3 }, () => Math.floor(rand() * 256)));
  return sharp(field, { raw: { width: 16, height: 16, channels: 3 } })
    .resize(width, height, { kernel: 'cubic' })
    .raw()
    .toBuffer();
}

/** A 24-bit bottom-up BMP of RGB rows (BITMAPINFOHEADER). */
function bmp(rgb, width, height) {
  const stride = Math.ceil((width * 3) / 4) * 4;
  const out = Buffer.alloc(54 + stride * height);
  out.write('BM', 0, 'latin1');
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(54, 10);
  out.writeUInt32LE(40, 14);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(height, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(24, 28);
  for (let y = 0; y < height; y++) {
    const row = 54 + (height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const source = (y * width + x) * 3;
      out[row + x * 3] = rgb[source + 2];
      out[row + x * 3 + 1] = rgb[source + 1];
      out[row + x * 3 + 2] = rgb[source];
    }
  }
  return out;
}

/** The input of one format and size, encoded once into the cache folder (git-ignored). */
async function input(cacheRoot, format, { width, height }) {
  const path = join(cacheRoot, 'memory', `smooth-${width}x${height}.${format}`);
  if (existsSync(path)) return readFileSync(path);
  mkdirSync(join(cacheRoot, 'memory'), { recursive: true });
  let bytes;
  const rgb = await smoothPixels(width, height);
  if (format === 'bmp') bytes = bmp(rgb, width, height);
  else if (format === 'heic') {
    // sharp's prebuilt libvips cannot encode HEVC: Debian's heif-enc (libheif-examples) does, from a PNG
    const png = `${path}.png`;
    await sharp(rgb, { raw: { width, height, channels: 3 }, limitInputPixels: false })
      .png()
      .toFile(png);
    execFileSync('heif-enc', ['-q', '50', '-o', `${path}.part`, png], { stdio: 'ignore' });
    rmSync(png);
    bytes = readFileSync(`${path}.part`);
  } else {
    const image = sharp(rgb, { raw: { width, height, channels: 3 }, limitInputPixels: false });
    const encoders = {
      jpeg: () => image.jpeg({ quality: 85 }),
      png: () => image.png({ compressionLevel: 6 }),
      webp: () => image.webp({ quality: 75, effort: 0 }),
      tiff: () => image.tiff({ compression: 'lzw' }),
      gif: () => image.gif({ effort: 1 }),
      avif: () => image.avif({ quality: 50, effort: 0 }),
    };
    bytes = await encoders[format]().toBuffer();
  }
  writeFileSync(`${path}.part`, bytes);
  renameSync(`${path}.part`, path);
  return bytes;
}

/**
 * One measurement on a fresh service: a small edit of the same format first (worker threads, codecs and
 * WebAssembly modules loaded), the peak reset (clear_refs 5), then the edit; peak RSS over the RSS before it
 * and the service's estimate (its debug line "pixel work admitted (..., estimated N MiB)").
 */
async function measure({ main, env, nodeArgs, key, warmUp, body }) {
  const { child, base } = await startService(main, { ...env, LOG_LEVEL: 'debug' }, nodeArgs);
  try {
    const estimates = [];
    child.stdout.on('data', (chunk) => {
      for (const match of chunk.toString('utf8').matchAll(/estimated ([\d.]+) MiB/g)) estimates.push(Number(match[1]));
    });
    const warm = await post(base, key, warmUp);
    if (warm !== 200) throw new Error(`the warm-up edit answered ${warm}`);
    await sleep(500);
    writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
    const before = memory(child.pid);
    const began = performance.now();
    const status = await post(base, key, body);
    const seconds = (performance.now() - began) / 1000;
    await sleep(200); // the debug line may follow the answer
    const peak = memory(child.pid).peakKiB;
    return {
      status,
      seconds,
      beforeMiB: before.rssKiB / 1024,
      overMiB: (peak - before.rssKiB) / 1024,
      estimateMiB: estimates.at(-1),
    };
  } finally {
    await stop(child);
  }
}

/** Every format at every size, both edits; one service process per measurement, one after the other. */
export async function runMemorySuite(options, { main, env, nodeArgs, cacheRoot, log }) {
  const sizes = SIZES[options.quick ? 'quick' : 'full'];
  const serviceEnv = { ...env, FETCH_MAX_BYTES: MAX_BYTES, EDIT_INPUT_BYTES: MAX_BYTES };
  const rows = [];
  for (const format of MEMORY_FORMATS) {
    const small = await input(cacheRoot, format, { width: 256, height: 256 });
    for (const size of sizes) {
      log(`memory: ${format} ${size.label}: input ...`);
      const bytes = await input(cacheRoot, format, size);
      const row = { format, size: size.label, pixels: size.width * size.height, inputMiB: bytes.length / MIB };
      for (const [name, edit] of Object.entries(EDITS)) {
        const warmUp = uploadBody(small, `small.${format}`, edit);
        const body = uploadBody(bytes, `input.${format}`, edit);
        row[name] = await measure({ main, env: serviceEnv, nodeArgs, key: env.ADMIN_API_KEY, warmUp, body });
        log(`  ${name}: ${JSON.stringify(row[name])}`);
      }
      rows.push(row);
    }
  }
  return { rows };
}

/** The doc's memory block: a row per format and size. */
export function renderMemory({ machine, rows }) {
  const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
  const cells = (m) =>
    m.status === 200
      ? [fixed(m.overMiB), fixed(m.estimateMiB), fixed(m.overMiB / m.estimateMiB, 2)]
      : [`answered ${m.status}`, '', ''];
  const lines = [
    '### Memory of one edit per input format',
    '',
    `${machine.date.slice(0, 10)}, ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(0)} GiB, Node ${machine.node}.`,
    '',
    'One upload edit on a fresh service process (embedded mode), after a 256 x 256 edit of the same format',
    "(threads and codecs loaded); the peak is the process's VmHWM, reset just before the edit, over its RSS then.",
    "The estimate is the service's own for that edit (what admission holds in EDIT_MEMORY_BYTES). Inputs: a smooth",
    "generated image: sharp encodes it, Debian's heif-enc (x265, quality 50) the HEIC, a 24-bit BMP by code.",
    'Re-encode: the whole image to JPEG; fit: into 1024x1024, JPEG. MiB; ratio = peak over baseline / estimate.',
    '',
    '| format | size | input (MiB) | RSS before | re-encode: peak over it | estimate | ratio | fit: peak over it | estimate | ratio |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) =>
      [
        '',
        r.format.toUpperCase(),
        r.size,
        fixed(r.inputMiB, 1),
        fixed(r.reencode.beforeMiB),
        ...cells(r.reencode),
        ...cells(r.fit),
        '',
      ]
        .join(' | ')
        .trim(),
    ),
  ];
  return lines.join('\n');
}
