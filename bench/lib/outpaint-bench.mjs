// The outpaint suite (bench/README.md, "The outpaint suite"): nine photographs (licences in
// test/fixtures/outpaint/LICENSES.md), each cropped by OUTPAINT_MARGIN of its size on every side and outpainted
// back to its full size through the service (`fit: outpaint` with `outpaint_by` in pixels, the local backend),
// then measured against the real photo (lib/outpaint-metrics.mjs), beside a mirror-and-blur fill made in-process
// from the same crop and, with --outpaint-before=PATH, another build's service (the code before a change). The
// object the copy count looks for is the service's own cut-out of the crop (background.remove). Each result is
// also written as a strip (truth, this build, the build before, mirror-and-blur) into docs/images/outpaint/ by a
// run that writes the doc, or with --outpaint-gallery.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import sharp from 'sharp';
import { fillMetrics } from './outpaint-metrics.mjs';
import { startNodeServer, startService, stop } from './processes.mjs';
import { fetchResult, postEdit } from './vision-rows.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const SERVERS = join(import.meta.dirname, '..', 'servers');
const GALLERY = join(ROOT, 'docs', 'images', 'outpaint');
const require = createRequire(import.meta.url);

/** The share of each side cropped away and outpainted back. */
export const OUTPAINT_MARGIN = 0.15;
const COMPOSITES = join(ROOT, 'test', 'fixtures', 'composites');
const OWN = join(ROOT, 'test', 'fixtures', 'outpaint');
export const OUTPAINT_PHOTOS = [
  ['coffee', join(COMPOSITES, 'coffee.jpg')],
  ['chelsea', join(COMPOSITES, 'chelsea.jpg')],
  ['astronaut', join(OWN, 'astronaut.jpg')],
  ['rocket', join(OWN, 'rocket.jpg')],
  ['camera', join(OWN, 'camera.jpg')],
  ['hubble', join(OWN, 'hubble.jpg')],
  ['brick', join(COMPOSITES, 'brick.jpg')],
  ['grass', join(COMPOSITES, 'grass.jpg')],
  ['gravel', join(COMPOSITES, 'gravel.jpg')],
];
const STRIP_WIDTH = 300;

async function rgbOf(bytes) {
  const { data, info } = await sharp(bytes)
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** The photos, each { name, truth, crop (JPEG q95 bytes), inner, margins }. */
async function photos(limit) {
  const out = [];
  for (const [name, file] of OUTPAINT_PHOTOS.slice(0, limit)) {
    const truth = await rgbOf(file);
    const mx = Math.round(truth.width * OUTPAINT_MARGIN);
    const my = Math.round(truth.height * OUTPAINT_MARGIN);
    const inner = { left: mx, top: my, width: truth.width - 2 * mx, height: truth.height - 2 * my };
    const crop = await sharp(truth.data, { raw: { width: truth.width, height: truth.height, channels: 3 } })
      .extract(inner)
      .jpeg({ quality: 95 })
      .toBuffer();
    out.push({ name, truth, crop, inner, margins: { x: mx, y: my } });
  }
  return out;
}

/** The mirror-and-blur baseline of the build (dist/) on the crop placed as the service places it. */
async function mirrorBlur(photo) {
  const { mirrorBlurFill } = require(
    join(ROOT, 'dist', 'libs', 'generative', 'src', 'local', 'fill', 'mirror-blur-fill.js'),
  );
  const { width, height } = photo.truth;
  const crop = await rgbOf(photo.crop);
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < crop.height; y++) {
    data.set(
      crop.data.subarray(y * crop.width * 3, (y + 1) * crop.width * 3),
      ((y + photo.inner.top) * width + photo.inner.left) * 3,
    );
  }
  return mirrorBlurFill({
    data,
    width,
    height,
    inner: photo.inner,
    feather: { x: 0, y: 0 },
    seed: 0,
    variant: 0,
    preference: 'optimal',
  });
}

/** One service's outpaint of every photo: { results: name -> rgb, ms: name -> request time }. */
async function outpaintAll(main, serviceEnv, url, list, log) {
  const proc = await startService(main, serviceEnv);
  const key = serviceEnv.ADMIN_API_KEY;
  try {
    const results = {};
    const ms = {};
    for (const photo of list) {
      const body = {
        input: url(`${photo.name}.jpg`),
        operations: {
          resizing: { fit: { type: 'outpaint', outpaint_by: `${photo.margins.x}px ${photo.margins.y}px` } },
        },
        output: { format: 'png' },
      };
      const began = performance.now();
      const data = await postEdit(proc.base, key, body);
      ms[photo.name] = performance.now() - began;
      const result = await rgbOf(await fetchResult(proc.base, data.output.tmp_url ?? data.output.url));
      if (result.width !== photo.truth.width || result.height !== photo.truth.height) {
        throw new Error(
          `${photo.name}: outpainted to ${result.width}x${result.height}, not ${photo.truth.width}x${photo.truth.height}`,
        );
      }
      results[photo.name] = result.data;
      log(`  ${photo.name}: ${Math.round(ms[photo.name])} ms`);
    }
    return { results, ms };
  } finally {
    await stop(proc.child);
  }
}

/** The service's cut-out of each crop, as an object mask on the full canvas (1 where alpha >= 128). */
async function objectMasks(main, serviceEnv, url, list) {
  const proc = await startService(main, serviceEnv);
  const key = serviceEnv.ADMIN_API_KEY;
  try {
    const masks = {};
    for (const photo of list) {
      const body = {
        input: url(`${photo.name}.jpg`),
        operations: { background: { remove: true, color: 'transparent' } },
        output: { format: 'png' },
      };
      const data = await postEdit(proc.base, key, body);
      const png = await fetchResult(proc.base, data.output.tmp_url ?? data.output.url);
      const alpha = await sharp(png).ensureAlpha().extractChannel(3).raw().toBuffer();
      const { width, height } = photo.truth;
      const mask = new Uint8Array(width * height);
      for (let y = 0; y < photo.inner.height; y++) {
        for (let x = 0; x < photo.inner.width; x++) {
          if (alpha[y * photo.inner.width + x] >= 128) mask[(y + photo.inner.top) * width + x + photo.inner.left] = 1;
        }
      }
      masks[photo.name] = mask;
    }
    return masks;
  } finally {
    await stop(proc.child);
  }
}

/** Truth, this build, the build before (when run) and mirror-and-blur side by side, STRIP_WIDTH px each. */
async function writeStrip(photo, images) {
  const { width, height } = photo.truth;
  const tiles = await Promise.all(
    images.map((rgb) =>
      sharp(rgb, { raw: { width, height, channels: 3 } })
        .resize(STRIP_WIDTH)
        .png()
        .toBuffer({ resolveWithObject: true }),
    ),
  );
  const tileHeight = tiles[0].info.height;
  const strip = await sharp({
    create: { width: STRIP_WIDTH * tiles.length, height: tileHeight, channels: 3, background: '#000' },
  })
    .composite(tiles.map((tile, index) => ({ input: tile.data, left: index * STRIP_WIDTH, top: 0 })))
    .jpeg({ quality: 82 })
    .toBuffer();
  mkdirSync(GALLERY, { recursive: true });
  writeFileSync(join(GALLERY, `${photo.name}.jpg`), strip);
}

/**
 * Runs the suite: { rows: [{ photo, method, ...metrics, ms }], methods, seconds }. `main`: this build's service;
 * `options.outpaint.before`: another build's (optional); `options.outpaint.photos`: how many photos.
 */
export async function runOutpaintSuite(options, { main, folder, env, serviceEnv, log }) {
  const began = performance.now();
  const list = await photos(options.outpaint.photos);
  const inputFolder = join(folder, 'input');
  mkdirSync(inputFolder, { recursive: true });
  for (const photo of list) writeFileSync(join(inputFolder, `${photo.name}.jpg`), photo.crop);
  const origin = await startNodeServer(join(SERVERS, 'origin-server.mjs'), [inputFolder], env);
  const url = (file) => `http://127.0.0.1:${origin.port}/${file}`;
  try {
    log('outpaint: this build');
    const now = await outpaintAll(main, serviceEnv, url, list, log);
    let before;
    if (options.outpaint.before) {
      log(`outpaint: the build before (${options.outpaint.before})`);
      before = await outpaintAll(options.outpaint.before, serviceEnv, url, list, log);
    }
    const masks = await objectMasks(main, serviceEnv, url, list);
    const rows = [];
    for (const photo of list) {
      const { width, height } = photo.truth;
      const mirror = await mirrorBlur(photo);
      const methods = [['this build', now.results[photo.name], now.ms[photo.name]]];
      if (before) methods.push(['the build before', before.results[photo.name], before.ms[photo.name]]);
      methods.push(['mirror and blur', mirror, NaN]);
      for (const [method, rgb, ms] of methods) {
        const metrics = await fillMetrics(rgb, photo.truth.data, width, height, photo.inner, masks[photo.name]);
        rows.push({ photo: photo.name, method, ms, ...metrics });
      }
      if (options.outpaint.gallery) await writeStrip(photo, [photo.truth.data, ...methods.map(([, rgb]) => rgb)]);
    }
    return { rows, methods: [...new Set(rows.map((row) => row.method))], seconds: (performance.now() - began) / 1000 };
  } finally {
    await stop(origin.child);
  }
}

/** The suite's block of docs/benchmarks.md: a table per method and measure, the mean of the photos last. */
export function renderOutpaint({ rows, methods, seconds }) {
  const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
  const names = [...new Set(rows.map((row) => row.photo))];
  const measures = [
    ['lowFrequency', 'low-frequency error (0..255, lower is better)', 1],
    ['gradientRatio', 'gradient ratio (1 = as detailed as the real surroundings)', 2],
    ['textureDistance', 'texture distance (0 = the same local contrast)', 2],
    ['blockiness', 'blockiness (periodic edge excess; the truth in the last row)', 2],
    ['objectCopies', 'object copies (share of textured new pixels)', 3],
    ['ms', 'request time, ms (one request each; indicative)', 0],
  ];
  const lines = [
    `Nine photographs cropped by ${OUTPAINT_MARGIN * 100}% on every side and outpainted back (suite time ${fixed(seconds, 0)} s).`,
    '',
  ];
  for (const [key, title, digits] of measures) {
    lines.push(
      `**${title}**`,
      '',
      `| method | ${names.join(' | ')} | mean |`,
      `| --- |${names.map(() => ' --- |').join('')} --- |`,
    );
    const table = key === 'blockiness' ? [...methods, 'truth'] : methods;
    for (const method of table) {
      const values = names.map((name) => {
        const row = rows.find((r) => r.photo === name && r.method === (method === 'truth' ? methods[0] : method));
        return method === 'truth' ? row.truthBlockiness : row[key];
      });
      const finite = values.filter(Number.isFinite);
      const mean = finite.length ? finite.reduce((a, b) => a + b, 0) / finite.length : NaN;
      lines.push(`| ${method} | ${values.map((v) => fixed(v, digits)).join(' | ')} | ${fixed(mean, digits)} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
