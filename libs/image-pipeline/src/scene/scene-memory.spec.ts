import { describe, expect, it } from 'vitest';
import { estimateSceneMemory } from './scene-composer';

describe('estimateSceneMemory', () => {
  const object = { width: 800, height: 600 };
  const canvas = { width: 1024, height: 1024 };

  it('counts a template decoded whole before it is cover-fitted: two RGBA frames of its own size', () => {
    const without = estimateSceneMemory(object, canvas);
    const template = { width: 8000, height: 6000 };
    expect(estimateSceneMemory(object, canvas, { template }) - without).toBe(8000 * 6000 * 4 * 2);
  });

  it('grows with the object and the canvas', () => {
    const base = estimateSceneMemory(object, canvas);
    expect(estimateSceneMemory({ width: 1600, height: 1200 }, canvas)).toBeGreaterThan(base);
    expect(estimateSceneMemory(object, { width: 1440, height: 1440 })).toBeGreaterThan(base);
  });
});
