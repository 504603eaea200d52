import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editImage } from './helpers/edit-client';
import { pngClaiming } from './helpers/fake-generators/fake-server';
import { OpenAiFake } from './helpers/fake-generators/openai';
import { createScene, productImage } from './helpers/scene-fixtures';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * The generator trust boundary (docs/generator-protocols.md, "Trust boundary"): a hostile OpenAI-compatible
 * generator answers a style transfer with a body without end, a URL to a metadata address, an image whose header
 * claims 100000 x 100000 pixels, its internals in an error, or nothing for minutes while the client goes away.
 * Each is a 502 naming the generator (or a slot given back), over the real API.
 */

const KEY = 'sk-test-trust-0123456789';
const MAX_BYTES = 1024 * 1024;
let images: ImageServer;
let generator: OpenAiFake;
/** A live listener on another loopback address: a URL there must not be connected to. */
let elsewhere: OpenAiFake;
let app: TestApp;

beforeAll(async () => {
  images = await startImageServer();
  images.put(
    '/photo.png',
    await sharp({ create: { width: 64, height: 48, channels: 3, background: '#408060' } })
      .png()
      .toBuffer(),
  );
  images.put('/bottle.png', await productImage());
  generator = await new OpenAiFake({ apiKey: KEY }).start();
  elsewhere = await new OpenAiFake({ apiKey: KEY }).start('127.0.0.2');
  app = await startTestApp({
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    GENERATIVE_BACKEND: 'openai',
    GENERATIVE_URL: generator.url,
    GENERATIVE_API_KEY: KEY,
    GENERATIVE_RETRIES: '0',
    GENERATIVE_MAX_RESPONSE_BYTES: String(MAX_BYTES),
    // one edit at a time and none waiting: an edit that keeps its slot makes the next one 503
    EDIT_CONCURRENCY: '1',
    EDIT_QUEUE_LIMIT: '0',
    SCENE_CONCURRENCY: '1',
    SCENE_QUEUE_LIMIT: '0',
  });
});

afterAll(async () => {
  await app?.close();
  await generator?.close();
  await elsewhere?.close();
  await images?.stop();
});

const EDITS = 'POST /v1/images/edits';
const STYLE = { generative: { style_transfer: { prompt: 'watercolour' } } };

function restyle() {
  return editImage(app, { input: images.url('/photo.png'), operations: STYLE, output: { format: 'png' } });
}

/** Sends `body` to `path` and goes away as soon as the generator has the job: resolves when it has gone. */
async function leaveWhenGenerating(path: string, body: unknown): Promise<void> {
  const before = generator.to(EDITS).length;
  const client = new AbortController();
  const gone = fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${app.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: client.signal,
  }).catch(() => undefined);
  await until(() => generator.to(EDITS).length > before, 'the generator received the job');
  client.abort();
  await gone;
}

/** The request again while it answers 503 (a slot still being given back), a bounded number of times. */
async function onceFree(send: () => ReturnType<typeof editImage>) {
  let res = await send();
  for (let attempt = 0; attempt < 20 && res.status === 503; attempt += 1) {
    await new Promise((r) => setTimeout(r, 100));
    res = await send();
  }
  return res;
}

/** Waits up to 20 s for `condition` (a scene segments its object first: slow on a loaded 2-core machine). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 400 && !condition(); attempt += 1) await new Promise((r) => setTimeout(r, 50));
  expect(condition(), what).toBe(true);
}

describe('a hostile generator', () => {
  it('answering without end: read up to GENERATIVE_MAX_RESPONSE_BYTES, then 502 naming it', async () => {
    generator.fail(EDITS, { stream: { chunk: Buffer.alloc(64 * 1024, 0x41), times: 100_000 } });
    const res = await restyle();
    expect(res.status, res.text).toBe(502);
    expect(res.body.error_code).toBe('1803');
    expect(res.body.error_message).toMatch(
      /^OpenAI-compatible API at 127\.0\.0\.1:\d+ answered more than 1048576 bytes \(GENERATIVE_MAX_RESPONSE_BYTES\) to POST \/v1\/images\/edits$/,
    );
    // it meant to send 6.25 GiB; the connection was closed a little past the limit
    expect(await generator.streamEnded()).toBeLessThan(64 * MAX_BYTES);
  });

  it('answering with a URL to a metadata address or another host: refused before any connection', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      `${elsewhere.url}/files/img-1.png`,
    ]) {
      generator.fail(EDITS, { status: 200, body: { created: 1, data: [{ url }] } });
      const res = await restyle();
      expect(res.status, res.text).toBe(502);
      expect(res.body.error_message).toMatch(
        /^OpenAI-compatible API at 127\.0\.0\.1:\d+ answered with a URL outside its own origin: not fetched$/,
      );
      // where it pointed is for the operator: in the log, not in the answer
      expect(res.text).not.toContain(new URL(url).hostname);
      expect(app.logs.some((line) => line.includes(`it said: ${new URL(url).host}`))).toBe(true);
    }
    expect(elsewhere.connections).toBe(0);
    // a URL on its own origin is fetched (dall-e-2's default answer)
    generator.answerUrls = true;
    try {
      expect((await restyle()).status).toBe(200);
    } finally {
      generator.answerUrls = false;
    }
    expect(generator.to('GET /files/img-1.png')).toHaveLength(1);
  });

  it('answering an image whose header claims 100000 x 100000: refused from the header, 502', async () => {
    const giant = pngClaiming(100_000, 100_000).toString('base64');
    generator.fail(EDITS, { status: 200, body: { created: 1, data: [{ b64_json: giant }] } });
    const res = await restyle();
    expect(res.status, res.text).toBe(502);
    expect(res.body.error_message).toBe(
      'The image generator answered with an image that is too large (100000x100000; at most 4194304 pixels for a 64x48 job).',
    );
  });

  it('telling its internals in an error: the client sees its status only, the log a short redacted line', async () => {
    const internals = `model path /srv/secret-models/v7.safetensors failed; key ${KEY}; ${'trace '.repeat(200)}`;
    generator.fail(EDITS, { status: 500, body: { error: { message: internals, type: 'server_error' } } });
    const res = await restyle();
    expect(res.status, res.text).toBe(502);
    expect(res.body.error_message).toMatch(
      /^OpenAI-compatible API at 127\.0\.0\.1:\d+ answered 500 \(POST \/v1\/images\/edits\)$/,
    );
    expect(res.text).not.toContain('secret-models');
    const logged = app.logs.filter((line) => line.includes('secret-models'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('key [redacted]');
    expect(logged[0]).not.toContain(KEY);
    expect(logged[0]).not.toContain('trace '.repeat(40));
  });

  it('answering slowly after the client went away: the generator call is dropped and the slot given back', async () => {
    generator.fail(EDITS, { slow: { ms: 120_000, status: 200, body: { created: 1, data: [] } } });
    const dropped = generator.abandoned;
    await leaveWhenGenerating('/v1/image/edit', { input: images.url('/photo.png'), operations: STYLE });
    // the service closes its connection to the generator (it answers in two minutes)...
    await until(() => generator.abandoned === dropped + 1, 'the generator call was dropped');
    // ...and the one edit slot is free again (EDIT_QUEUE_LIMIT 0: a held slot answers 503)
    const res = await onceFree(() => editImage(app, { input: images.url('/photo.png'), operations: {} }));
    expect(res.status, res.text).toBe(200);
  });

  it('answering a scene slowly after the client went away: the same, for the scene slot', async () => {
    generator.fail(EDITS, { slow: { ms: 120_000, status: 200, body: { created: 1, data: [] } } });
    const dropped = generator.abandoned;
    await leaveWhenGenerating('/v1/scene/create', {
      object: { image_url: images.url('/bottle.png') },
      scene: { prompt: 'oak table' },
      output: { number_of_images: 1 },
    });
    await until(() => generator.abandoned === dropped + 1, 'the generator call was dropped');
    // SCENE_QUEUE_LIMIT 0: a held scene slot answers 503 SCENE_BUSY; shadows stay local
    const res = await onceFree(() =>
      createScene(app, {
        object: { image_url: images.url('/bottle.png') },
        scene: { effect: 'shadows' },
        output: { number_of_images: 1 },
      }),
    );
    expect(res.status, res.text).toBe(200);
  });
});
