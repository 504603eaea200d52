/**
 * `upscale: faces` over HTTP on the real networks: the faces found (face-api, libs/vision) are enlarged again by
 * the network best at faces and blended in (libs/image-pipeline/src/operations/face-detail.ts). The service runs
 * with SUPER_RESOLUTION_MEDIUM_MAX_PIXELS below the portraits' size, as a large photo would be by default: the
 * whole image runs the light network, the faces the medium one. Judged against the original, on the face: each
 * portrait (test/fixtures/faces, public domain and CC0) is downscaled 2x, enlarged back by `faces` and by `photo`
 * (the same light network, nothing per face), and the face region compared (PSNR, SSIM).
 */
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editImage, fetchResult } from './helpers/edit-client';
import { psnr, ssim, type Pixels } from './helpers/image-metrics';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startTestApp, type TestApp } from './helpers/test-app';

const FACES = join(__dirname, 'fixtures/faces');
/** Each portrait's face: a box around the hand-labelled nose and mouth (test/fixtures/faces/README.md). */
const PORTRAITS: Record<string, { left: number; top: number; width: number; height: number }> = {
  astronaut: { left: 160, top: 50, width: 140, height: 170 },
  camera: { left: 195, top: 100, width: 100, height: 120 },
};

let app: TestApp;
let images: ImageServer;
const originals = new Map<string, Pixels>();

async function raw(image: sharp.Sharp): Promise<Pixels> {
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

beforeAll(async () => {
  images = await startImageServer();
  // the whole 256 x 256 input (65,536 px) runs slim; a face region (about 90 x 110 px) runs medium
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', SUPER_RESOLUTION_MEDIUM_MAX_PIXELS: '20000' });
  for (const name of Object.keys(PORTRAITS)) {
    const original = await raw(
      sharp(join(FACES, `${name}.jpg`))
        .removeAlpha()
        .toColourspace('srgb'),
    );
    const small = await sharp(original.data as Buffer, { raw: { width: 512, height: 512, channels: 3 } })
      .resize(256, 256, { kernel: 'lanczos3' })
      .png()
      .toBuffer();
    images.put(`/${name}.png`, small);
    originals.set(name, original);
  }
}, 60_000);

afterAll(async () => {
  await app?.close();
  await images?.stop();
});

async function enlarged(name: string, mode: string): Promise<Pixels> {
  const res = await editImage(app, {
    input: images.url(`/${name}.png`),
    operations: { restorations: { upscale: mode } },
    output: { format: 'png' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return raw(sharp(await fetchResult(app, res.body.data.output.tmp_url)).removeAlpha());
}

const region = (image: Pixels, box: (typeof PORTRAITS)[string]) =>
  raw(sharp(image.data as Buffer, { raw: { width: image.width, height: image.height, channels: 3 } }).extract(box));

describe('upscale faces', () => {
  it.each(Object.keys(PORTRAITS))(
    'is closer to the original on the face than the same network without it: %s',
    async (name) => {
      const box = PORTRAITS[name];
      const original = await region(originals.get(name)!, box);
      const faces = await enlarged(name, 'faces');
      const photo = await enlarged(name, 'photo');
      expect([faces.width, faces.height]).toEqual([512, 512]);
      const [withFaces, without] = [await region(faces, box), await region(photo, box)];
      const scores = {
        faces: [psnr(withFaces, original), ssim(withFaces, original)],
        photo: [psnr(without, original), ssim(without, original)],
      };
      expect(scores.faces[0], JSON.stringify(scores)).toBeGreaterThan(scores.photo[0]);
      expect(scores.faces[1], JSON.stringify(scores)).toBeGreaterThan(scores.photo[1]);
    },
  );
});
