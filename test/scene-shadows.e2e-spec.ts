import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchResult } from './helpers/edit-client';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { createScene, hardCutout, rawOf } from './helpers/scene-fixtures';
import { measureShadow } from './helpers/shadow-metrics';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * The shadows of `effect: shadows` on a white scene as a photographer would judge them, over HTTP, on the
 * service's own samples (a mug, a potted plant, a bottle) in both views: a contact shadow under the base, a cast
 * shadow at least 15 levels darker than the floor within half the object's size, and nothing beside the object
 * above its lowest third (no shadow climbing its sides, none under a plant's leaves).
 */

const SAMPLES = join(__dirname, '..', 'libs', 'storage', 'samples');

let app: TestApp;
let images: ImageServer;

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  images.put('/bottle.png', readFileSync(join(SAMPLES, 'bottle.png')));
  // The mug and the plant are JPEGs: cut out by the service, then their alpha made hard (0 or 255), so that the
  // measure can tell the object's pixels from the backdrop's exactly.
  for (const name of ['mug', 'plant']) {
    images.put(`/${name}.jpg`, readFileSync(join(SAMPLES, `${name}.jpg`)));
    images.put(`/${name}.png`, await hardCutout(app, images.url(`/${name}.jpg`)));
  }
}, 60_000);

afterAll(async () => {
  await app?.close();
  await images?.stop();
});

async function render(name: string, view: string, color: string, images_ = 1) {
  const res = await createScene(app, {
    object: { image_url: images.url(`/${name}.png`), scale: 0.6 },
    scene: { effect: 'shadows', color, view },
    output: { number_of_images: images_, format: 'png' },
  });
  expect(res.status, res.text).toBe(200);
  return Promise.all(
    res.body.data.output.map(async (output: { tmp_url: string }) => rawOf(await fetchResult(app, output.tmp_url))),
  );
}

describe.each(['top', 'front'])('effect: shadows, view %s, on white', (view) => {
  it.each(['mug', 'plant', 'bottle'])('%s: grounded, cast by the light, never beside its upper parts', async (name) => {
    const [white] = await render(name, view, '#ffffff');
    const [grey] = await render(name, view, '#404040');
    const report = measureShadow(white, grey);
    const line = JSON.stringify({ ...report, contact: Math.round(report.contact), cast: Math.round(report.cast) });
    expect(report.floor, line).toBeGreaterThan(250);
    expect(report.contact, `contact under the base: ${line}`).toBeGreaterThan(40);
    expect(report.cast, `cast shadow within half the object's size: ${line}`).toBeGreaterThanOrEqual(15);
    expect(report.climb, `beside the object above its lowest third: ${line}`).toBeLessThanOrEqual(4);
  });
});

it('each of four variants casts its own shadow, at least 15 levels deep (the plant, front)', async () => {
  const whites = await render('plant', 'front', '#ffffff', 4);
  const greys = await render('plant', 'front', '#404040', 4);
  const reports = whites.map((white, n) => measureShadow(white, greys[n]));
  for (const report of reports) {
    expect(report.cast).toBeGreaterThanOrEqual(15);
    expect(report.climb).toBeLessThanOrEqual(4);
  }
});
