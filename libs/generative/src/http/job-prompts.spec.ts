import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  HEIGHT,
  OBJECT_RGB,
  WIDTH,
  at,
  filled,
  generativeConfig,
  sceneJob,
  templateBackground,
} from '../../../../test/helpers/fake-generators/jobs';
import {
  backdropWords,
  generatorSize,
  isLocalScene,
  jobSeed,
  jobSteps,
  modelName,
  promptText,
  sceneDenoise,
  sceneBase,
  styleDenoise,
} from './job-prompts';
import { compositeOver, invertMask } from './pixel-ops';
import { encodePng } from './png-encode';

describe('job-prompts', () => {
  it.each([
    [undefined, 'fast', 12],
    [undefined, 'optimal', 25],
    [undefined, 'best', 40],
    [7, 'best', 7],
  ] as const)('steps %s with preference %s: %i', (steps, preference, expected) => {
    expect(jobSteps({ steps, preference })).toBe(expected);
  });

  it.each([
    [{ styleStrength: 0, denoisingStrength: 0, depthStrength: 0 }, 0.25],
    [{ styleStrength: 0.5, denoisingStrength: 0.5, depthStrength: 0.5 }, 0.5],
    [{ styleStrength: 1, denoisingStrength: 1, depthStrength: 0 }, 1],
    [{ styleStrength: 1, denoisingStrength: 1, depthStrength: 1 }, 0.6],
    [{ styleStrength: 0, denoisingStrength: 0, depthStrength: 1 }, 0.15],
  ])('style denoise of %o: %s', (strengths, expected) => {
    expect(styleDenoise(strengths)).toBeCloseTo(expected, 3);
  });

  it('repaints by job kind: prompt 1, transform 0.75, adjust 0.35', () => {
    expect(sceneDenoise({ kind: 'prompt' })).toBe(1);
    expect(sceneDenoise(templateBackground('transform'))).toBe(0.75);
    expect(sceneDenoise(templateBackground('adjust'))).toBe(0.35);
  });

  it('keeps shadows and locked templates local', () => {
    expect(isLocalScene({ kind: 'shadows', colour: 'transparent', view: 'auto' })).toBe(true);
    expect(isLocalScene(templateBackground('lock'))).toBe(true);
    expect(isLocalScene(templateBackground('adjust'))).toBe(false);
    expect(isLocalScene({ kind: 'prompt' })).toBe(false);
  });

  it.each([
    [1024, 1024, 1024, 1024],
    [1365, 768, 1368, 768],
    [1441, 1441, 1440, 1440],
    [4000, 3000, 2048, 1536],
    [30, 20, 64, 64],
  ])('size %ix%i -> %ix%i (multiples of 8, 64..2048)', (width, height, w, h) => {
    expect(generatorSize(width, height, { multiple: 8, min: 64, max: 2048 })).toEqual({ width: w, height: h });
  });

  it('builds prompts from the client, the subject, a caption, the backdrop and the guidelines', () => {
    const base = sceneJob();
    expect(promptText(base)).toBe('a sunny beach');
    expect(promptText(base, { backdrop: backdropWords({ kind: 'prompt', colour: { r: 180, g: 190, b: 160 } }) })).toBe(
      'a sunny beach, sage backdrop',
    );
    const generate = { ...base, text: { generate: true, guidelines: 'bright and airy', subject: 'a blue box' } };
    expect(promptText(generate)).toBe('a product photo of a blue box, bright and airy');
    expect(promptText(generate, { caption: 'a box on a table' })).toBe('a box on a table, bright and airy');
    const template = { kind: 'template', template: sceneJob().object, mode: 'transform', view: 'top' } as const;
    expect(backdropWords(template)).toBe('seen from above');
  });

  it('seeds differ by variant and stay unsigned; models come from config.models', () => {
    expect(jobSeed({ seed: 10, variant: 3 })).toBe(13);
    expect(jobSeed({ seed: 2 ** 32 - 1, variant: 1 })).toBe(0);
    const config = generativeConfig({ models: { v2: 'sdxl.safetensors' } });
    expect(modelName(config, 'v2')).toBe('sdxl.safetensors');
    expect(modelName(config, 'v1')).toBeUndefined();
  });

  it('composites the object on the template or the backdrop colour, and inverts the mask', () => {
    const init = (job: ReturnType<typeof sceneJob>) => compositeOver(job.object.pixels, sceneBase(job));
    const onTemplate = init(sceneJob(templateBackground('transform', [10, 200, 30])));
    expect(at(onTemplate, 0, 0)).toEqual([10, 200, 30]);
    expect(at(onTemplate, WIDTH / 2, HEIGHT / 2)).toEqual(OBJECT_RGB);
    const onColour = init(sceneJob({ kind: 'prompt', colour: { r: 250, g: 0, b: 5 } }));
    expect(at(onColour, 0, 0)).toEqual([250, 0, 5]);
    const mask = invertMask(sceneJob().mask.pixels);
    expect(mask.data[0]).toBe(255);
    expect(mask.data[(HEIGHT / 2) * WIDTH + WIDTH / 2]).toBe(0);
  });

  it('encodes PNGs that decode to the same pixels (grey, RGB, RGBA)', async () => {
    for (const channels of [1, 3, 4] as const) {
      const pixels = filled(
        37,
        21,
        Array.from({ length: channels }, () => 0),
      );
      for (let index = 0; index < pixels.data.length; index += 1) pixels.data[index] = (index * 37) % 256;
      const png = encodePng(pixels);
      const meta = await sharp(png).metadata();
      expect([meta.width, meta.height, meta.channels]).toEqual([37, 21, channels]);
      const raw = await sharp(png)
        .toColourspace(channels === 1 ? 'b-w' : 'srgb')
        .raw()
        .toBuffer();
      expect(Buffer.compare(raw, Buffer.from(pixels.data))).toBe(0);
    }
  });
});
