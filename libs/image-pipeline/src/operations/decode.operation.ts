import sharp from 'sharp';
import { openInput } from '../decode/decode-input';
import type { DecodeStep } from './pipeline-step';
import { materialize, type StageImage } from './stage';

/**
 * The image as displayed: the input opened (BMP and HEIC decoded on the worker threads) with its EXIF
 * orientation applied. Nothing is decoded by sharp yet, so a plain resize and encode stay one pipeline and
 * JPEG and WebP inputs are shrunk while they are decoded. 16-bit pixels (and sharp's Display P3 working
 * space for them) become 8-bit sRGB here when a later step's constants assume 0..255 sRGB values.
 */
export const decodeStep: DecodeStep = {
  name: 'decode',
  phase: 'decode',
  async open({ bytes, probe, pool, maxPixels, tolerateJpegWarnings }, toEightBit) {
    const source = await openInput(bytes, probe, pool, maxPixels, tolerateJpegWarnings);
    const stage: StageImage = {
      image: sharp(source.input, source.options).autoOrient(),
      width: probe.displayWidth,
      height: probe.displayHeight,
      hasAlpha: probe.hasAlpha,
      fresh: true,
    };
    const wide = probe.space === 'rgb16' || probe.space === 'grey16';
    return wide && toEightBit ? materialize(stage) : stage;
  },
};
