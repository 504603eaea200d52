import { existsSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

export const PHOTO_WIDTH = 4000;
export const PHOTO_HEIGHT = 3000;

import { random } from '../../test/fixtures/seeded-random.mjs';

export { random };

/** Random values on a grid of `cell`-pixel squares, sampled bilinearly: texture about `cell` pixels wide. */
function octave(rand, cell, amplitude) {
  const cols = Math.ceil(PHOTO_WIDTH / cell) + 2;
  const rows = Math.ceil(PHOTO_HEIGHT / cell) + 2;
  const lattice = new Float32Array(cols * rows);
  for (let i = 0; i < lattice.length; i++) lattice[i] = (rand() - 0.5) * amplitude;
  return (x, y) => {
    const gx = x / cell;
    const gy = y / cell;
    const x0 = Math.floor(gx);
    const y0 = Math.floor(gy);
    const fx = gx - x0;
    const i = Math.floor(gy) * cols + x0;
    const top = lattice[i] + (lattice[i + 1] - lattice[i]) * fx;
    const bottom = lattice[i + cols] + (lattice[i + cols + 1] - lattice[i + cols]) * fx;
    return top + (bottom - top) * (gy - y0);
  };
}

/** Hard-edged shapes (buildings, objects): the edges an encoder must keep after the downscale. */
function shapes(rand, count) {
  return Array.from({ length: count }, () => {
    const w = 80 + rand() * 900;
    const h = 80 + rand() * 900;
    const x = rand() * (PHOTO_WIDTH - w);
    const y = rand() * (PHOTO_HEIGHT - h);
    return { x0: x, x1: x + w, y0: y, y1: y + h, c: [rand() * 120 - 60, rand() * 120 - 60, rand() * 120 - 60] };
  });
}

/**
 * 4000x3000 RGB pixels that compress like a photograph: smooth large-scale light and colour gradients,
 * hard-edged shapes, texture at several scales (3, 14 and 60 px) and a little per-pixel noise. A flat or
 * purely smooth image would make JPEG decoding and every encoder unrealistically cheap.
 */
export function photoPixels() {
  const width = PHOTO_WIDTH;
  const height = PHOTO_HEIGHT;
  const rand = random(0x5eed);
  const grain = octave(rand, 3, 46);
  const texture = octave(rand, 14, 22);
  const patches = octave(rand, 60, 50);
  const boxes = shapes(rand, 30);
  const pixels = Buffer.alloc(width * height * 3);
  let o = 0;
  for (let y = 0; y < height; y++) {
    const sky = y / height;
    const rows = boxes.filter((box) => y >= box.y0 && y < box.y1);
    for (let x = 0; x < width; x++) {
      const detail = grain(x, y) + texture(x, y) + (rand() - 0.5) * 10;
      const shade = 40 * Math.sin(x / 610 + 1.3 * Math.cos(y / 830)) + patches(x, y);
      let r = 70 + 120 * sky + shade;
      let g = 110 + 60 * sky + shade * 0.8;
      let b = 200 - 90 * sky + shade * 0.5;
      for (const box of rows) {
        if (x >= box.x0 && x < box.x1) {
          r += box.c[0];
          g += box.c[1];
          b += box.c[2];
        }
      }
      pixels[o++] = Math.min(255, Math.max(0, r + detail));
      pixels[o++] = Math.min(255, Math.max(0, g + detail * 0.9));
      pixels[o++] = Math.min(255, Math.max(0, b + detail * 0.8));
    }
  }
  return pixels;
}

/** Writes the 12 MP test photo (JPEG q90, 4:2:0, no profile: sRGB by default) into `folder`, once. */
export async function writePhoto(folder) {
  const path = join(folder, 'photo.jpg');
  if (!existsSync(path)) {
    await sharp(photoPixels(), { raw: { width: PHOTO_WIDTH, height: PHOTO_HEIGHT, channels: 3 } })
      .jpeg({ quality: 90 })
      .toFile(path);
  }
  return path;
}
