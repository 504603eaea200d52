import sharp from 'sharp';
import { afterAll, beforeAll, it } from 'vitest';
import { iccDescription, CMYK_PROFILES } from '@app/image-pipeline';
import { estimateJpegQuality } from '@app/image-pipeline/kernels/jpeg-quality';
import { quadrantsImage, alphaPng, cmykJpeg, greyJpeg } from './fixtures/images';
import { call } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startTestApp, type TestApp } from './helpers/test-app';
import { readTiffTags, webpChunks, readPngStream, decode, pixelAt } from './helpers/image-bytes';

let app: TestApp; let images: ImageServer;
beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  images.put('/q.png', await quadrantsImage({ format: 'png', width: 64, height: 48 }));
  images.put('/alpha.png', await alphaPng());
  images.put('/cmyk.jpg', await cmykJpeg());
  images.put('/grey.jpg', await greyJpeg());
});
afterAll(async () => { await app?.close(); await images?.stop(); });
async function run(input: string, output: unknown, operations?: unknown) {
  const r = await call(app.url, 'POST', '/v1/image/edit', { key: app.adminKey, body: { input: images.url(input), output, ...(operations ? { operations } : {}) } });
  if (r.status !== 200) return { status: r.status, body: r.body };
  const res = await fetch(`${app.url}${new URL(r.body.data.output.tmp_url).pathname}`);
  return { status: 200, body: r.body, bytes: Buffer.from(await res.arrayBuffer()) };
}

function quads(colours: number[][], w = 64, h = 48) {
  const data = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(colours[(y < h / 2 ? 0 : 2) + (x < w / 2 ? 0 : 1)], (y * w + x) * 3);
  return sharp(data, { raw: { width: w, height: h, channels: 3 } }).png().toBuffer();
}

import { gradientJpeg } from './fixtures/images';


import { png16, heicFixture, withHeifRotation, heicDeclaring, withOrientation, encodeBmp } from './fixtures/images';
it('explore', async () => {
  const inputs: Record<string, Buffer> = {
    bmp24: await quadrantsImage({ format: 'bmp' }),
    bmp32: await quadrantsImage({ format: 'bmp', bmpBits: 32 }),
    bmp32a: await quadrantsImage({ format: 'bmp', alpha: true }),
    gif: await quadrantsImage({ format: 'gif' }),
    jpeg: await quadrantsImage({ format: 'jpeg' }),
    png: await quadrantsImage({ format: 'png' }),
    png16: await png16(),
    tiff: await quadrantsImage({ format: 'tiff' }),
    webp: await quadrantsImage({ format: 'webp' }),
    avif: await quadrantsImage({ format: 'avif' }),
    heic: heicFixture(),
    heicRot1: withHeifRotation(heicFixture(), 1),
    heicRot3: withHeifRotation(heicFixture(), 3),
    jpeg6: await withOrientation(await quadrantsImage({ format: 'jpeg' }), 6),
    jpeg8: await withOrientation(await quadrantsImage({ format: 'jpeg' }), 8),
    jpeg3: await withOrientation(await quadrantsImage({ format: 'jpeg' }), 3),
  };
  for (const [name, bytes] of Object.entries(inputs)) {
    images.put(`/${name}`, bytes);
    const r = await run(`/${name}`, { format: 'png' });
    if (r.status !== 200) { console.log(name, r.status, JSON.stringify(r.body)); continue; }
    const m = await sharp(r.bytes!).metadata();
    const d = await decode(r.bytes!);
    const c = [[0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]].map(([x, y]) => pixelAt(d, Math.floor(x * d.width), Math.floor(y * d.height)));
    console.log(name, JSON.stringify(r.body.data.input), m.depth, m.channels, d.width, d.height, JSON.stringify(c));
  }
  const jpeg = await quadrantsImage({ format: 'jpeg' });
  images.put('/trunc.jpg', jpeg.subarray(0, jpeg.length >> 1));
  console.log(JSON.stringify((await run('/trunc.jpg', { format: 'png' })).body));
  images.put('/heicbomb', heicDeclaring(100000, 100000));
  console.log(JSON.stringify((await run('/heicbomb', { format: 'png' })).body));
});
