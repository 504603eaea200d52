import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ServiceException } from '@app/common';
import { SUBNASALE, UPPER_LIP_TOP, type DetectedFace, type RawImage } from '@app/image-pipeline';
import { faceFixtures, NO_FACE, type FaceFixture } from '../../../../test/fixtures/faces';
import { FACE_INPUT_SIDE, FaceApiDetector, faceModelFiles } from './face-detector.model';

/**
 * The real face-api networks (SSD MobileNet V1 + 68 landmarks) on TF.js WASM, no mocks: on the portrait fixtures
 * (test/fixtures/faces) with hand-labelled subnasale and upper lip, and on the face-free sample bottle.
 */

/** The image scaled (never up) to the detector's side, as the pipeline gives it, and the scale back. */
async function input(bytes: Buffer): Promise<{ rgb: RawImage; scale: number; width: number }> {
  const meta = await sharp(bytes).metadata();
  const scale = Math.min(1, FACE_INPUT_SIDE / Math.max(meta.width!, meta.height!));
  const { data, info } = await sharp(bytes)
    .resize(Math.round(meta.width! * scale), Math.round(meta.height! * scale))
    .flatten({ background: '#fff' })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    rgb: { data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 },
    scale,
    width: meta.width!,
  };
}

describe('FaceApiDetector (face-api on TF.js WASM)', () => {
  const detector = FaceApiDetector.fromConfig(loadConfig({}));
  let fixtures: FaceFixture[];

  beforeAll(async () => {
    fixtures = await faceFixtures();
  }, 30_000);
  afterAll(() => detector.runner.close());

  it('uses the four shipped files of @vladmandic/face-api, each with its pinned SHA-256', () => {
    const files = faceModelFiles();
    for (const file of [
      files.detector.manifest,
      files.detector.weights,
      files.landmarks.manifest,
      files.landmarks.weights,
    ]) {
      expect(file.path).toMatch(/node_modules\/@vladmandic\/face-api\/model\//);
      expect(createHash('sha256').update(readFileSync(file.path)).digest('hex')).toBe(file.sha256);
    }
  });

  it('finds every labelled face, with landmark 33 at the subnasale and 51 at the upper lip', async () => {
    for (const fixture of fixtures) {
      const { rgb, scale } = await input(fixture.jpeg);
      const found: DetectedFace[] = await detector.detect(rgb);
      expect(found.length, fixture.name).toBe(fixture.faces.length);
      for (const face of fixture.faces) {
        // the detected face whose box holds the labelled points, in full-resolution pixels
        const match = found.find(({ box }) => {
          const [left, top, right, bottom] = [box.left, box.top, box.left + box.width, box.top + box.height].map(
            (v) => v / scale,
          );
          return [face.nose, face.lip].every(({ x, y }) => x > left && x < right && y > top && y < bottom);
        });
        expect(match, `${fixture.name}: a box around the face at ${JSON.stringify(face.nose)}`).toBeDefined();
        const nose = match!.landmarks[SUBNASALE];
        const lip = match!.landmarks[UPPER_LIP_TOP];
        expect(match!.landmarks).toHaveLength(68);
        expect(match!.score).toBeGreaterThan(0.5);
        expect(nose.y, `${fixture.name}: 33 above 51`).toBeLessThan(lip.y);
        // within 6 % of the face's box height of the hand-labelled points: measured under 1 % on the frontal
        // astronaut at every scale, up to 5 % on the cameraman's three-quarter profile (faces/README.md)
        const tolerance = Math.max(2, (0.06 * match!.box.height) / scale);
        for (const [point, label] of [
          [nose, face.nose],
          [lip, face.lip],
        ] as const) {
          expect(Math.abs(point.y / scale - label.y), `${fixture.name} y`).toBeLessThanOrEqual(tolerance);
          expect(Math.abs(point.x / scale - label.x), `${fixture.name} x`).toBeLessThanOrEqual(2 * tolerance);
        }
      }
    }
  }, 120_000);

  it('finds no face on a face-free image (the sample bottle)', async () => {
    const { rgb } = await input(NO_FACE);
    expect(await detector.detect(rgb)).toEqual([]);
  });

  it('refuses pixels larger than its input side instead of scaling them itself', async () => {
    const big: RawImage = { data: new Uint8Array(2000 * 10 * 3), width: 2000, height: 10, channels: 3 };
    await expect(detector.detect(big)).rejects.toThrow(/at most 1024 px/);
  });

  it('reports itself loaded after the first use (warmed up once)', () => {
    expect(detector.runner.state).toBe('loaded');
  });

  it('keeps the event loop free while it infers (its own worker thread)', async () => {
    const { rgb } = await input(fixtures[2].jpeg);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    for (let i = 0; i < 3; i++) expect(await detector.detect(rgb)).toHaveLength(1);
    delay.disable();
    // one inference at 1024 px takes 0.5-1 s here: on the event loop it would hold it that long. The bound
    // leaves room for a machine busy with other processes (p99 reached 60 ms at a load average of 11).
    expect(delay.percentile(99) / 1e6).toBeLessThan(200);
  }, 30_000);
});

describe('FaceApiDetector with files the runtime cannot load', () => {
  it('answers 501 naming the files (state failed) when a verified weights file is truncated, without a crash', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'atelier-faces-'));
    try {
      const shipped = faceModelFiles();
      const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
      const copy = (file: { path: string }, name: string) => {
        copyFileSync(file.path, join(folder, name));
        return { path: join(folder, name), sha256: sha(join(folder, name)) };
      };
      // the detector's weights cut to half: their checksum is declared, so they pass verification
      const weights = join(folder, 'ssd.bin');
      writeFileSync(weights, readFileSync(shipped.detector.weights.path).subarray(0, 1_000_000));
      const files = {
        detector: {
          manifest: copy(shipped.detector.manifest, 'ssd.json'),
          weights: { path: weights, sha256: sha(weights) },
        },
        landmarks: {
          manifest: copy(shipped.landmarks.manifest, 'lm.json'),
          weights: copy(shipped.landmarks.weights, 'lm.bin'),
        },
      };
      const broken = FaceApiDetector.fromConfig(loadConfig({}), files);
      expect(await broken.runner.verify()).toBe(true);
      const image: RawImage = { data: new Uint8Array(64 * 64 * 3), width: 64, height: 64, channels: 3 };
      const refused = await broken.detect(image).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ServiceException);
      expect((refused as ServiceException).status).toBe(501);
      expect((refused as ServiceException).message).toContain(weights);
      expect(broken.runner.state).toBe('failed');
      await broken.runner.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 30_000);
});
