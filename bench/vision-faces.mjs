// Face detection figures (issue 14's vision suite): the shipped face models (face-api's SSD MobileNet V1 + 68
// landmarks on TF.js WASM, libs/vision) through the built service code (`npm run build` first), on the committed
// portraits of test/fixtures/faces. Reports the first use (worker start, loading the four verified files, the
// warm-up inference), warm detection p50/p95 at the sizes the service gives the model, finding the faces of a
// 12 MP JPEG as an edit does (decode at model resolution + detection), and the process's peak RSS.
//   node bench/vision-faces.mjs [--runs=N] [--json]    or import { runFaceBench } from the bench runner.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '..');
const require = createRequire(join(ROOT, 'package.json'));
const sharp = require('sharp');

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const mib = (kib) => Math.round(kib / 1024);

async function raw(input, width, height) {
  const { data, info } = await sharp(input)
    .resize(width, height, { fit: 'fill' })
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 };
}

async function timed(runs, work) {
  const times = [];
  let answer;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    answer = await work();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: Math.round(quantile(times, 0.5)), p95: Math.round(quantile(times, 0.95)), runs, answer };
}

/** Runs the measurements; `log` gets progress lines. Resolves with the figures (milliseconds, MiB). */
export async function runFaceBench({ runs = 10, log = () => {} } = {}) {
  const { loadConfig } = require(join(ROOT, 'dist/libs/common/src/index.js'));
  const { FaceApiDetector } = require(join(ROOT, 'dist/libs/vision/src/index.js'));
  const { ImagePipeline } = require(join(ROOT, 'dist/libs/image-pipeline/src/index.js'));
  const config = loadConfig({});
  const detector = FaceApiDetector.fromConfig(config);
  const pipeline = new ImagePipeline(config, undefined, detector);
  const astronaut = readFileSync(join(ROOT, 'test/fixtures/faces/astronaut.jpg'));
  const rssBefore = process.resourceUsage().maxRSS;
  try {
    log('faces: first use (worker, files, warm-up) ...');
    const start = performance.now();
    await detector.runner.load();
    const firstUseMs = Math.round(performance.now() - start);
    const peakAfterLoadMiB = mib(process.resourceUsage().maxRSS);
    const sizes = {};
    for (const side of [512, 1024]) {
      log(`faces: warm detection at ${side}x${side} ...`);
      const image = await raw(astronaut, side, side);
      const { answer, ...figures } = await timed(runs, () => detector.detect(image));
      sizes[`${side}x${side}`] = { ...figures, faces: answer.length, peakRssMiB: mib(process.resourceUsage().maxRSS) };
    }
    log('faces: finding the faces of a 12 MP JPEG (4000x3000) as an edit does ...');
    const photo = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#c8c0b0' } })
      .composite([{ input: await sharp(astronaut).resize(1200).toBuffer(), left: 1400, top: 600 }])
      .jpeg({ quality: 85 })
      .toBuffer();
    const probe = await pipeline.probe(photo);
    const { answer, ...edit12mp } = await timed(runs, () => pipeline.findFaces(photo, probe));
    return {
      model: 'face-api 1.7.15: ssd_mobilenetv1 + face_landmark_68 (TF.js 4.22.0, WASM backend)',
      threads: config.vision.threads,
      firstUseMs,
      warmDetection: sizes,
      findFaces12mp: { ...edit12mp, faces: answer.length },
      peakRssMiB: mib(process.resourceUsage().maxRSS),
      peakRssBeforeModelMiB: mib(rssBefore),
      peakRssAfterFirstUseMiB: peakAfterLoadMiB,
    };
  } finally {
    await detector.runner.close();
    await pipeline.onApplicationShutdown();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const runs = Number(process.argv.find((arg) => arg.startsWith('--runs='))?.slice(7) ?? 10);
  const figures = await runFaceBench({ runs, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
}
