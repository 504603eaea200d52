import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchResult } from './helpers/edit-client';
import { client } from './helpers/http';
import { startS3Server, s3StorageBody, type S3TestServer } from './helpers/s3-server';
import {
  boxWhere,
  createScene,
  isProductRed,
  PRODUCT,
  productColour,
  productImage,
  rawOf,
  templateImage,
} from './helpers/scene-fixtures';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * Scenes that read their object and template from a connected storage and write their images to it (real
 * s3rver): the bytes in the bucket are the images the response describes, several images get unique names in
 * the destination folder, and the template's `adjust` mode tones the product without moving it.
 */

const BUCKET = 'catalogue';
let s3: S3TestServer;
let app: TestApp;

beforeAll(async () => {
  s3 = await startS3Server([BUCKET]);
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  const res = await client(app.url, app.adminKey).post('/v1/storage/storages', s3StorageBody(s3, 'catalogue', BUCKET));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await put('raw/bottle.png', await productImage());
  await put('templates/wall.png', await templateImage());
});

afterAll(async () => {
  await app?.close();
  await s3?.stop();
});

async function put(key: string, body: Buffer): Promise<void> {
  await s3.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
}

async function get(key: string): Promise<Buffer> {
  const stored = await s3.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await stored.Body!.transformToByteArray());
}

async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key!).sort();
}

describe('scenes with storages', () => {
  it('writes several images to a folder under unique generated names, the bytes those the response describes', async () => {
    const body = {
      object: { image_url: 'storage://catalogue/raw/bottle.png', scale: 0.5 },
      scene: { effect: 'shadows', color: '#eeeae4' },
      output: { number_of_images: 3, destination: 'storage://catalogue/scenes/', format: 'webp' },
    };
    const first = await createScene(app, body);
    expect(first.status, first.text).toBe(200);
    const second = await createScene(app, body);
    expect(second.status, second.text).toBe(200);
    const outputs = [...first.body.data.output, ...second.body.data.output];
    const keys = outputs.map((output: { object_key: string }) => output.object_key);
    // every image of both requests has its own name: nothing was overwritten
    expect(new Set(keys).size).toBe(6);
    expect(await keysUnder('scenes/')).toEqual([...keys].sort());
    for (const output of outputs) {
      expect(output).toMatchObject({
        tmp_url: '',
        format: 'webp',
        width: 1024,
        height: 1024,
        object_bucket: BUCKET,
        service_storage_uri: `storage://catalogue/${output.object_key}`,
      });
      expect(output.object_key).toMatch(/^scenes\/bottle-scene-[0-9a-f]{8}-[1-3]\.webp$/);
      const stored = await rawOf(await get(output.object_key));
      expect([stored.width, stored.height]).toEqual([1024, 1024]);
      const box = boxWhere(stored, isProductRed)!;
      // lossy WebP: the product's box within a pixel or two of where it was placed
      expect(Math.abs(box.left - 384)).toBeLessThanOrEqual(2);
      expect(Math.abs(box.bottom - 768)).toBeLessThanOrEqual(2);
    }
  });

  it('writes one image to a file destination, and refuses a file for several images', async () => {
    const one = await createScene(app, {
      object: { image_url: 'storage://catalogue/raw/bottle.png' },
      scene: { effect: 'shadows' },
      output: { number_of_images: 1, destination: 'storage://catalogue/single/bottle-shadow.png' },
    });
    expect(one.status, one.text).toBe(200);
    expect(one.body.data.output[0]).toMatchObject({ object_key: 'single/bottle-shadow.png', format: 'png' });
    expect((await rawOf(await get('single/bottle-shadow.png'))).width).toBe(1024);
    const several = await createScene(app, {
      object: { image_url: 'storage://catalogue/raw/bottle.png' },
      scene: { effect: 'shadows' },
      output: 'storage://catalogue/single/four.png',
    });
    expect(several.status).toBe(422);
    expect(Object.keys(several.body.error_details)).toEqual(['output']);
  });

  it('adjust: the template from the storage, the product toned towards it but not moved or redrawn', async () => {
    const res = await createScene(app, {
      object: { image_url: 'storage://catalogue/raw/bottle.png', scale: 0.5 },
      scene: { template_url: 'storage://catalogue/templates/wall.png', view: 'front', template_mode: 'adjust' },
      output: { number_of_images: 1 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.profiling.details).toMatchObject({ mode: 'adjust' });
    const image = await rawOf(await fetchResult(app, res.body.data.output[0].tmp_url));
    // toned, not redrawn: each product pixel moved by a per-channel gain and offset, a few levels on average
    let difference = 0;
    let count = 0;
    for (let y = 110; y < PRODUCT.box.height - 4; y += 5) {
      for (let x = 4; x < PRODUCT.box.width - 4; x += 5) {
        const o = ((256 + y) * 1024 + 384 + x) * image.channels;
        const expected = productColour(x, y);
        for (let c = 0; c < 3; c += 1) difference += Math.abs(image.data[o + c] - expected[c]);
        count += 3;
      }
    }
    const mean = difference / count;
    expect(mean).toBeGreaterThan(0.5);
    expect(mean).toBeLessThan(40);
    const box = boxWhere(image, isProductRed)!;
    expect(Math.abs(box.left - 384)).toBeLessThanOrEqual(2);
    expect(Math.abs(box.top - 256)).toBeLessThanOrEqual(2);
  });
});
