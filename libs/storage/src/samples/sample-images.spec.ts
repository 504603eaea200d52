import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { loadConfig, MEDIA_TYPES, ServiceException } from '@app/common';
import { SAMPLE_IMAGES, SampleImages } from './sample-images';

const FOLDER = resolve(__dirname, '../../samples');

function samples(publicBaseUrl: string): SampleImages {
  return new SampleImages(loadConfig({ PUBLIC_BASE_URL: publicBaseUrl, DATA_DIR: '/nonexistent' }));
}

/** What `open` answers: the sample's name (200), 404 (under the folder, not listed), or 'network' (not a sample URL). */
async function answer(service: SampleImages, url: string, method = 'GET'): Promise<string | number> {
  const response = await service.open(new URL(url), method, 1_000_000);
  if (!response) return 'network';
  response.body.destroy();
  return response.status === 200 ? new URL(response.url).pathname.split('/').pop()! : response.status;
}

describe('SampleImages: which URLs are read from disk', () => {
  const local = samples('http://127.0.0.1:3000');
  const cases: [url: string, expected: string | number, method?: string][] = [
    ['http://127.0.0.1:3000/samples/mug.jpg', 'mug.jpg'],
    ['HTTP://127.0.0.1:3000/samples/bottle.png', 'bottle.png'],
    ['http://127.0.0.1:3000/samples/plant.jpg?size=1#top', 'plant.jpg'],
    ['http://127.0.0.1:3000/samples/mug.jpg', 'mug.jpg', 'HEAD'],
    // dot segments are resolved by URL parsing before the rule sees the path: out of the folder is out of the rule
    ['http://127.0.0.1:3000/samples/../samples/mug.jpg', 'mug.jpg'],
    ['http://127.0.0.1:3000/samples/%2e%2e/tmp/x.png', 'network'],
    ['http://127.0.0.1:3000/samples/..%2ftmp%2fx.png', 404],
    ['http://127.0.0.1:3000/samples/%6dug.jpg', 404],
    ['http://127.0.0.1:3000/samples/Mug.jpg', 404],
    ['http://127.0.0.1:3000/samples/mug.jpg/', 404],
    ['http://127.0.0.1:3000/samples/sub/mug.jpg', 404],
    ['http://127.0.0.1:3000/samples/README.md', 404],
    ['http://127.0.0.1:3000/samples/', 404],
    ['http://127.0.0.1:3000/samples', 'network'],
    ['http://127.0.0.1:3000/samplesx/mug.jpg', 'network'],
    ['http://127.0.0.1:3000/tmp/mug.jpg', 'network'],
    ['http://127.0.0.1:3001/samples/mug.jpg', 'network'],
    ['https://127.0.0.1:3000/samples/mug.jpg', 'network'],
    // the service's own listener in another spelling of loopback (PORT is 3000 here)
    ['http://localhost:3000/samples/mug.jpg', 'mug.jpg'],
    ['http://LOCALHOST:3000/samples/plant.jpg', 'plant.jpg'],
    ['http://[::1]:3000/samples/mug.jpg', 'mug.jpg'],
    ['http://localhost:3000/samples/other.jpg', 404],
    ['http://localhost:3001/samples/mug.jpg', 'network'],
    ['http://user@localhost:3000/samples/mug.jpg', 'network'],
    ['http://127.0.0.2:3000/samples/mug.jpg', 'network'],
    ['http://user@127.0.0.1:3000/samples/mug.jpg', 'network'],
    ['http://user:secret@127.0.0.1:3000/samples/mug.jpg', 'network'],
    ['http://127.0.0.1:3000/samples/mug.jpg', 'network', 'POST'],
  ];
  it.each(cases)('%s (%s)', async (url, expected, method) => {
    expect(await answer(local, url, method)).toBe(expected);
  });

  it('follows the path of PUBLIC_BASE_URL, and its default port', async () => {
    const proxied = samples('https://images.example.com:443/atelier/');
    expect(proxied.url('mug.jpg')).toBe('https://images.example.com/atelier/samples/mug.jpg');
    expect(proxied.url()).toBe('https://images.example.com/atelier/samples/');
    expect(await answer(proxied, 'https://images.example.com/atelier/samples/mug.jpg')).toBe('mug.jpg');
    expect(await answer(proxied, 'https://images.example.com/samples/mug.jpg')).toBe('network');
    // behind the proxy, the listener itself (PORT 3000, plain HTTP) still serves its samples at /samples/
    expect(await answer(proxied, 'http://localhost:3000/samples/mug.jpg')).toBe('mug.jpg');
    expect(await answer(proxied, 'http://localhost:3000/atelier/samples/mug.jpg')).toBe('network');
  });

  it('answers a sample with its bytes, type and size, HEAD without a body, and keeps the caller size cap', async () => {
    const response = (await local.open(new URL('http://127.0.0.1:3000/samples/mug.jpg'), 'GET', 1_000_000))!;
    const chunks: Buffer[] = [];
    for await (const chunk of response.body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks)).toEqual(readFileSync(join(FOLDER, 'mug.jpg')));
    expect(response).toMatchObject({ status: 200, contentType: 'image/jpeg', size: chunks[0].length });
    const head = (await local.open(new URL('http://127.0.0.1:3000/samples/mug.jpg'), 'HEAD', 1_000_000))!;
    expect(head.size).toBe(chunks[0].length);
    expect(await head.body.toArray()).toEqual([]);
    const tooLarge = await local.open(new URL('http://127.0.0.1:3000/samples/mug.jpg'), 'GET', 1000).catch((e) => e);
    expect(tooLarge).toBeInstanceOf(ServiceException);
    expect((tooLarge as ServiceException).codeName).toBe('FETCH_TOO_LARGE');
  });
});

describe('the samples folder', () => {
  it('holds exactly the listed images (and their README), each of the listed type and size', async () => {
    expect(readdirSync(FOLDER).sort()).toEqual([...SAMPLE_IMAGES.map((sample) => sample.name), 'README.md'].sort());
    for (const sample of SAMPLE_IMAGES) {
      const bytes = readFileSync(join(FOLDER, sample.name));
      const metadata = await sharp(bytes).metadata();
      expect([metadata.format, metadata.width, metadata.height], sample.name).toEqual([
        sample.type,
        sample.width,
        sample.height,
      ]);
      expect(MEDIA_TYPES[sample.type].ext, sample.name).toBe(sample.name.split('.').pop());
      expect(readFileSync(join(FOLDER, 'README.md'), 'utf8')).toContain(`\`${sample.name}\``);
    }
  });
});
