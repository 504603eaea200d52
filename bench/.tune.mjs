import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import { compositeSet, SIZE } from '../test/fixtures/composites/composite-set.mjs';
const require = createRequire(import.meta.url);
const { matteKernel } = require('../dist/libs/image-pipeline/src/kernels/matte.kernel.js');
const set = await compositeSet();
const { boost } = await import('./.ridge.mjs');
const P = JSON.parse(process.argv[3] ?? 'null');
const category = process.argv[2] ?? 'general';
const iou = (a, t) => { let b = 0, e = 0; for (let i = 0; i < t.length; i++) { const x = a[i] > 127, y = t[i] > 127; if (x && y) b++; if (x || y) e++; } return b / e; };
let sum = 0; const rows = [];
for (const [i, c] of set.entries()) {
  const coarse = readFileSync(`/tmp/tune/${i}.mask`);
  const image = await sharp(c.jpeg).removeAlpha().raw().toBuffer();
  const up = await sharp(coarse, { raw: { width: 320, height: 320, channels: 1 } }).resize(SIZE.width, SIZE.height, { fit: 'fill', kernel: 'mitchell' }).extractChannel(0).raw().toBuffer();
  let upc = up;
  if (P) { const f = Float32Array.from(up, (v) => v / 255); const b = boost(f, 640, 640, P); upc = Uint8Array.from(b, (v) => Math.round(v * 255)); }
  const r = matteKernel({ image: { data: image, width: 640, height: 640, channels: 3 }, coarse: { data: upc, width: 640, height: 640, channels: 1 }, category, largestOnly: false, coarsePixel: 2 });
  const s = iou(r.alpha.data, c.truth); sum += s; rows.push(`${s.toFixed(3)} ${c.name}`);
}
console.log(rows.join('\n')); console.log('mean', (sum / set.length).toFixed(4));
