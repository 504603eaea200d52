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
  const s = iou(r.alpha.data, c.truth); sum += s;
  let be = 0, bn = 0; const a = r.alpha.data, t = c.truth;
  for (let y = 3; y < 637; y++) for (let x = 3; x < 637; x++) { const i = y * 640 + x; if ([-3, 3].some((d) => (t[i + d] > 127) !== (t[i] > 127) || (t[i + d * 640] > 127) !== (t[i] > 127))) { be += Math.abs(a[i] - t[i]); bn++; } }
  rows.push(`${s.toFixed(3)} ${(be / bn).toFixed(1)} ${c.object}|${c.name}`);
}
console.log(rows.join('\n'));
const by = {}; for (const r of rows) { const [i, b, rest] = r.split(' ', 3); const o = r.split('|')[0].split(' ').slice(2).join(' '); (by[o] ??= []).push(Number(r.split(' ')[1])); }
console.log(Object.entries(by).map(([o, v]) => `${o}: ${(v.reduce((a, b) => a + b, 0) / v.length).toFixed(1)}`).join('; ')); console.log('mean', (sum / set.length).toFixed(4));
