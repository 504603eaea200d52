import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@app/common';
import { quadrantsImage, withJpegSize } from './fixtures/images';
import { fetchResult } from './helpers/edit-client';
import { startImageServer, type ImageServer } from './helpers/image-server';
import {
  boxWhere,
  createScene,
  isProductRed,
  meanDifference,
  PRODUCT,
  productColour,
  productImage,
  rawOf,
  templateImage,
} from './helpers/scene-fixtures';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * POST /v1/scene/create with the local backend, over HTTP, checked by the pixels of the results: sizes, the
 * object where the request puts it and with its own pixels, shadows where asked, transparency, templates.
 */

let app: TestApp;
let images: ImageServer;
let product: Buffer;
let template: Buffer;

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  product = await productImage();
  template = await templateImage();
  images.put('/bottle.png', product);
  images.put('/template.png', template);
});

afterAll(async () => {
  await app?.close();
  await images?.stop();
});

type Raw = Awaited<ReturnType<typeof rawOf>>;

async function scene(body: {
  object?: object;
  scene: object;
  output?: unknown;
}): Promise<{ response: Record<string, any>; results: Raw[] }> {
  const res = await createScene(app, { ...body, object: { image_url: images.url('/bottle.png'), ...body.object } });
  expect(res.status, res.text).toBe(200);
  const data = res.body.data;
  const results = await Promise.all(
    data.output.map(async (output: { tmp_url: string }) => rawOf(await fetchResult(app, output.tmp_url))),
  );
  return { response: data, results };
}

function pixel(image: Raw, x: number, y: number): number[] {
  const o = (y * image.width + x) * image.channels;
  return Array.from(image.data.subarray(o, o + image.channels));
}

/** Every interior pixel of the product (2 px from its outline) equals the input's at a 1:1 placement at (left, top). */
function expectProductPixels(image: Raw, left: number, top: number): void {
  let compared = 0;
  let differing = 0;
  for (let y = 100; y < PRODUCT.box.height - 2; y += 3) {
    for (let x = 2; x < PRODUCT.box.width - 2; x += 3) {
      const [r, g, b] = pixel(image, left + x, top + y);
      const expected = productColour(x, y);
      compared += 1;
      if (r !== expected[0] || g !== expected[1] || b !== expected[2]) differing += 1;
    }
  }
  expect(compared).toBeGreaterThan(10_000);
  expect(differing).toBe(0);
}

describe('background effect: shadows', () => {
  it('makes four different 1024x1024 PNGs with the object at its place, its own pixels, and a shadow under it only', async () => {
    // scale 0.5 of a 1024 canvas fits the 256x512 product at exactly its own size: its pixels can be compared 1:1
    const { response, results } = await scene({ object: { scale: 0.5 }, scene: { effect: 'shadows', view: 'top' } });
    expect(response.input).toEqual({
      ext: 'png',
      mps: 0.28,
      mime: 'image/png',
      format: 'png',
      width: 400,
      height: 700,
    });
    expect(response.output).toHaveLength(4);
    for (const output of response.output) {
      expect(output).toMatchObject({
        ext: 'png',
        mime: 'image/png',
        format: 'png',
        width: 1024,
        height: 1024,
        mps: 1.0486,
      });
      expect(output.tmp_url).toMatch(/^http/);
    }
    for (const stage of ['fetch', 'decode', 'cutout', 'place', 'generate', 'compose', 'encode', 'write', 'total']) {
      expect(typeof response.profiling[stage], stage).toBe('number');
    }
    expect(response.profiling).toMatchObject({ backend: 'local', details: { cutout: 'own alpha', view: 'top' } });
    for (const image of results) {
      const box = boxWhere(image, isProductRed)!;
      // centred: the product's 256x512 box at (384, 256)
      expect(box).toEqual({ left: 384, top: 256, right: 640, bottom: 768 });
      expectProductPixels(image, 384, 256);
      // under the base: darker than the white backdrop; far away: the backdrop itself
      const below = pixel(image, 512, 775);
      expect(below[0], 'shadow under the object').toBeLessThan(235);
      for (const [x, y] of [
        [10, 10],
        [1013, 10],
        [10, 1013],
        [1013, 1013],
      ]) {
        expect(Math.min(...pixel(image, x, y)), `backdrop at ${x},${y}`).toBeGreaterThanOrEqual(250);
      }
    }
    for (let i = 0; i < results.length; i += 1) {
      for (let j = i + 1; j < results.length; j += 1) {
        expect(meanDifference(results[i], results[j]), `images ${i} and ${j} differ`).toBeGreaterThan(0.05);
      }
    }
  });

  it('keeps a transparent backdrop in PNG: alpha 0 away from the object, the shadow partly transparent, and refuses it in JPEG', async () => {
    const { results } = await scene({
      object: { scale: 0.5 },
      scene: { effect: 'shadows', color: 'transparent', view: 'front' },
      output: { number_of_images: 1 },
    });
    const [image] = results;
    expect(image.channels).toBe(4);
    expect(pixel(image, 10, 10)[3]).toBe(0);
    expect(pixel(image, 1013, 1013)[3]).toBe(0);
    expect(pixel(image, 512, 500)[3]).toBe(255);
    // somewhere near the base there is shadow: partly transparent black
    const shadow = boxWhere(image, (r, g, b, a) => a > 20 && a < 250 && r < 60);
    expect(shadow).toBeDefined();
    const refused = await createScene(app, {
      object: { image_url: images.url('/bottle.png') },
      scene: { effect: 'shadows', color: 'transparent' },
      output: { format: 'jpeg' },
    });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.error_details)).toEqual(['scene.color']);
  });
});

describe('sizes', () => {
  it.each([
    ['16:9', '1MP', 'v1', 1368, 768],
    ['4:5', '1MP', 'v1', 912, 1144],
    ['21:9', '1MP', 'v1', 1568, 672],
    ['19:13', '1MP', 'v1', 1240, 848],
    ['1:1', '2MP', 'v2', 1440, 1440],
    ['9:16', '2MP', 'v2', 1080, 1920],
  ])('%s at %s with model %s is %ix%i', async (ratio, resolution, model, width, height) => {
    const { response, results } = await scene({
      object: { scale: 0.6 },
      scene: { prompt: 'plain grey studio', aspect_ratio: ratio, model },
      output: { number_of_images: 1, resolution, format: 'jpeg' },
    });
    expect(response.output[0]).toMatchObject({ width, height, format: 'jpeg' });
    expect([results[0].width, results[0].height]).toEqual([width, height]);
  });
});

describe('placement', () => {
  it('absolute: scale, rotation and position (y from the bottom) measured in the result', async () => {
    const { results } = await scene({
      object: { scale: 0.3, rotation_degree: 90, position: { x: 0.25, y: 0.75 } },
      scene: { effect: 'shadows' },
      output: { number_of_images: 1 },
    });
    // rotated, the 256x512 product is 512x256; 0.3 of the canvas: factor 0.6 -> 307x154, centred at (256, 256)
    const box = boxWhere(results[0], isProductRed)!;
    const expected = { left: 256 - 153.6, top: 256 - 76.8, right: 256 + 153.6, bottom: 256 + 76.8 };
    for (const side of ['left', 'top', 'right', 'bottom'] as const)
      expect(Math.abs(box[side] - expected[side]), side).toBeLessThanOrEqual(4);
  });

  it('original: the object where it was in its own frame, the frame fitted inside the scene', async () => {
    const { results } = await scene({
      object: { placement_type: 'original' },
      scene: { effect: 'shadows' },
      output: { number_of_images: 1 },
    });
    const factor = 1024 / 700;
    const offsetX = (1024 - 400 * factor) / 2;
    const box = boxWhere(results[0], isProductRed)!;
    expect(Math.abs(box.left - (offsetX + 72 * factor))).toBeLessThanOrEqual(3);
    expect(Math.abs(box.top - 94 * factor)).toBeLessThanOrEqual(3);
    expect(Math.abs(box.bottom - (94 + 512) * factor)).toBeLessThanOrEqual(3);
  });

  it('padding: the object fitted inside the scene less the padding', async () => {
    const { results } = await scene({
      object: { placement_type: 'padding', padding: '10%' },
      scene: { effect: 'shadows' },
      output: { number_of_images: 1 },
    });
    // 1024 - 2 x 102 = 820 high: the 256x512 product becomes 410x820, centred
    const box = boxWhere(results[0], isProductRed)!;
    expect(Math.abs(box.top - 102)).toBeLessThanOrEqual(2);
    expect(Math.abs(box.bottom - 922)).toBeLessThanOrEqual(2);
    expect(Math.abs(box.left - 307)).toBeLessThanOrEqual(2);
    expect(Math.abs(box.right - 717)).toBeLessThanOrEqual(2);
  });
});

describe('templates', () => {
  it('lock leaves the template untouched outside the object and its shadow, where it is only darkened', async () => {
    images.put('/template.png', template);
    const { results } = await scene({
      object: { scale: 0.5 },
      scene: { template_url: images.url('/template.png'), view: 'top', template_mode: 'lock' },
      output: { number_of_images: 1 },
    });
    const original = await rawOf(template);
    const [image] = results;
    let brighter = 0;
    let darker = 0;
    let changedFar = 0;
    const samples: string[] = [];
    for (let y = 0; y < 1024; y += 1) {
      for (let x = 0; x < 1024; x += 1) {
        const inObject = x >= 384 && x < 640 && y >= 256 && y < 768;
        if (inObject) continue;
        const o = (y * 1024 + x) * 3;
        const p = (y * 1024 + x) * image.channels;
        const changed =
          image.data[p] !== original.data[o] ||
          image.data[p + 1] !== original.data[o + 1] ||
          image.data[p + 2] !== original.data[o + 2];
        if (!changed) continue;
        darker += 1;
        if (
          image.data[p] > original.data[o] ||
          image.data[p + 1] > original.data[o + 1] ||
          image.data[p + 2] > original.data[o + 2]
        ) {
          brighter += 1;
          if (brighter < 4)
            samples.push(
              `${x},${y}: ${Array.from(image.data.subarray(p, p + 3))} over ${Array.from(original.data.subarray(o, o + 3))}`,
            );
        }
        // far from the object (its box grown by 200 px; below it, where a top view throws the cast shadow
        // towards the viewer, by half its height: 256 px, the canvas's edge): nothing may change
        if (x < 184 || x >= 840 || y < 56) changedFar += 1;
      }
    }
    expect(brighter, samples.join('; ')).toBe(0);
    expect(changedFar).toBe(0);
    // the shadow: the template darkened around the object's base
    expect(darker).toBeGreaterThan(2000);
    expectProductPixels(image, 384, 256);
  });

  it('transform recolours the template towards the colour', async () => {
    const { results } = await scene({
      object: { scale: 0.3 },
      scene: { template_url: images.url('/template.png'), view: 'top', template_mode: 'transform', color: '#2050d0' },
      output: { number_of_images: 1 },
    });
    const original = await rawOf(template);
    const blueness = (image: Raw) => {
      let sum = 0;
      for (let y = 0; y < 200; y += 1)
        for (let x = 0; x < 1024; x += 1) {
          const o = (y * 1024 + x) * image.channels;
          sum += image.data[o + 2] - image.data[o];
        }
      return sum / (200 * 1024);
    };
    expect(blueness(results[0])).toBeGreaterThan(blueness(original) + 20);
  });
});

describe('prompt scenes', () => {
  it('draws different studio scenes with the product unchanged on them', async () => {
    const { response, results } = await scene({
      object: { scale: 0.5 },
      scene: { prompt: 'white marble table, soft warm light', preference: 'fast' },
      output: { number_of_images: 2, format: 'png' },
    });
    expect(results).toHaveLength(2);
    expect(meanDifference(results[0], results[1])).toBeGreaterThan(0.05);
    for (const image of results) expectProductPixels(image, 384, 256);
    expect(response.profiling.backend).toBe('local');
  });

  it('says in a notice which words of the prompt it did not draw, and gives none when it drew them all', async () => {
    const { response } = await scene({
      object: { scale: 0.5 },
      scene: { prompt: 'a sunny kitchen with lemons on white marble', preference: 'fast' },
      output: { number_of_images: 1 },
    });
    expect(response.notices).toHaveLength(1);
    const [notice] = response.notices;
    expect(notice.code).toBe('PROMPT_NOT_DRAWN');
    expect(notice.field).toBe('scene.prompt');
    for (const word of ['sunny', 'kitchen', 'lemons']) expect(notice.message).toContain(word);
    expect(notice.message).not.toMatch(/\bmarble\b|\bwhite\b/);
    const drawn = await scene({
      object: { scale: 0.5 },
      scene: { prompt: 'white marble table, soft warm light', preference: 'fast' },
      output: { number_of_images: 1 },
    });
    expect(drawn.response.notices).toBeUndefined();
  });

  it('cuts out an object whose image has no transparency (segmentation)', async () => {
    const flat = await (
      await import('sharp')
    )
      .default(product)
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 95 })
      .toBuffer();
    images.put('/bottle.jpg', flat);
    const res = await createScene(app, {
      object: { image_url: images.url('/bottle.jpg'), scale: 0.5 },
      scene: { effect: 'shadows', color: '#202020' },
      output: { number_of_images: 1 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.profiling.details.cutout).toBe('segmentation');
    const image = await rawOf(await fetchResult(app, res.body.data.output[0].tmp_url));
    // the white around the product is gone: the corners are the dark backdrop
    expect(Math.max(...pixel(image, 20, 20).slice(0, 3))).toBeLessThan(60);
    const box = boxWhere(image, isProductRed)!;
    expect(Math.abs(box.left - 384)).toBeLessThanOrEqual(6);
    expect(Math.abs(box.bottom - 768)).toBeLessThanOrEqual(6);
  });
});

describe('refusals', () => {
  it('answers every problem of the body in one 422 with dotted paths', async () => {
    const res = await createScene(app, {
      object: { image_url: images.url('/bottle.png'), scale: 2, position: { y: 3 } },
      scene: { effect: 'shadows', prompt: 'x', view: 'side' },
      output: { number_of_images: 9, resolution: '2MP' },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.error_details).sort()).toEqual(
      [
        'object.scale',
        'object.position.y',
        'scene.prompt',
        'scene.view',
        'output.number_of_images',
        'output.resolution',
      ].sort(),
    );
  });

  it('needs the image_generation scope', async () => {
    const created = await createScene(app, {}, app.adminKey);
    expect(created.status).toBe(422);
    const key = await fetch(`${app.url}/v1/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'editor only', scopes: ['image_editing'] }),
    }).then((r) => r.json() as Promise<{ data: { key: string } }>);
    const res = await createScene(
      app,
      { object: { image_url: images.url('/bottle.png') }, scene: { effect: 'shadows' } },
      key.data.key,
    );
    expect(res.status).toBe(403);
  });

  it('names the object when it cannot be read', async () => {
    images.put('/broken.png', Buffer.from('not an image at all'));
    const res = await createScene(app, {
      object: { image_url: images.url('/broken.png') },
      scene: { effect: 'shadows' },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.error_details)).toEqual(['object.image_url']);
  });

  it('refuses a truncated JPEG object, and takes one whose only fault is a warning browsers ignore', async () => {
    const jpeg = await quadrantsImage({ format: 'jpeg', width: 320, height: 240 });
    images.put('/declared.jpg', withJpegSize(jpeg, 640, 480));
    const truncated = await createScene(app, {
      object: { image_url: images.url('/declared.jpg') },
      scene: { effect: 'shadows' },
    });
    expect(truncated.status, truncated.text).toBe(422);
    expect(truncated.body).toMatchObject({ error_code: '1602' });
    const dht = jpeg.indexOf(Buffer.from([0xff, 0xc4]));
    images.put('/extraneous.jpg', Buffer.concat([jpeg.subarray(0, dht), Buffer.from([1, 2, 3]), jpeg.subarray(dht)]));
    const tolerated = await createScene(app, {
      object: { image_url: images.url('/extraneous.jpg'), scale: 0.5 },
      scene: { effect: 'shadows' },
      output: { number_of_images: 1 },
    });
    expect(tolerated.status, tolerated.text).toBe(200);
  });
});

describe('the scene gate and time limit', () => {
  it('answers 503 SCENE_BUSY with Retry-After when the scenes in progress and in line fill the gate', async () => {
    const busy = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', SCENE_CONCURRENCY: '1', SCENE_QUEUE_LIMIT: '0' });
    try {
      const body = {
        object: { image_url: images.url('/bottle.png') },
        scene: { prompt: 'oak wood table', preference: 'best' },
        output: { resolution: '2MP' },
      };
      const v2 = { ...body, scene: { ...body.scene, model: 'v2' } };
      const answers = await Promise.all([createScene(busy, v2), createScene(busy, v2), createScene(busy, v2)]);
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses[0]).toBe(200);
      const refused = answers.find((answer) => answer.status === 503)!;
      expect(refused.body.error_code).toBe(ErrorCodes.SCENE_BUSY.code);
      expect(refused.headers.get('retry-after')).toBe('2');
    } finally {
      await busy.close();
    }
  });

  it('answers 504 SCENE_TIMEOUT at the time limit when an image never arrives', async () => {
    const slow = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', SCENE_TIMEOUT_MS: '1000' });
    try {
      images.stall('/stalled-template.png', { declared: 100_000 });
      const started = Date.now();
      const res = await createScene(slow, {
        object: { image_url: images.url('/bottle.png') },
        scene: { template_url: images.url('/stalled-template.png'), view: 'top' },
      });
      expect(res.status).toBe(504);
      expect(res.body.error_type).toBe('scene');
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await slow.close();
    }
  });
});
