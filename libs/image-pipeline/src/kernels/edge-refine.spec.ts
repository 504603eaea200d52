import { describe, expect, it } from 'vitest';
import { refineEdges } from './edge-refine';

describe('refineEdges', () => {
  // an image whose object (left of column 300.., a dark red) meets a blue background along a slanted line, and
  // the alpha a 2x upsampling would give: a 6 px ramp centred 1 px off the true edge
  const width = 600;
  const height = 520;
  const edgeAt = (y: number) => 300 + Math.round(y / 10);
  const image = new Uint8Array(width * height * 3);
  const alpha = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const inside = x < edgeAt(y);
      image.set(inside ? [150, 30, 30] : [40, 120, 200], i * 3);
      const ramp = (edgeAt(y) + 1 - x) / 6 + 0.5;
      alpha[i] = Math.round(255 * Math.min(1, Math.max(0, ramp)));
    }
  }
  const before = alpha.slice();
  refineEdges({ data: image, width, height, channels: 3 }, alpha, 3);

  const soft = (a: Uint8Array) => a.filter((value) => value > 0 && value < 255).length;
  const misplaced = (a: Uint8Array) => {
    let wrong = 0;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) if (a[y * width + x] > 127 !== x < edgeAt(y)) wrong++;
    }
    return wrong;
  };

  it('moves the edge to the image’s own edge', () => {
    expect(misplaced(before)).toBeGreaterThan(height);
    expect(misplaced(alpha)).toBe(0);
  });

  it('narrows the band of partly transparent pixels, and leaves the solid parts as they were', () => {
    expect(soft(alpha)).toBeLessThan(soft(before) / 2);
    expect(alpha[10 * width + 5]).toBe(255);
    expect(alpha[10 * width + 590]).toBe(0);
  });
});
