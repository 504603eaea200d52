/** The matting measures the composite set and the vision bench judge cut-outs by (fixtures/composites). */
import { describe, expect, it } from 'vitest';
import { alphaMetrics } from './helpers/mask-metrics';

const W = 40;
const H = 30;
const plane = (value: (x: number, y: number) => number) =>
  Uint8Array.from({ length: W * H }, (_, i) => value(i % W, Math.floor(i / W)));

describe('alphaMetrics', () => {
  const truth = plane((x) => (x < 20 ? 255 : 0));

  it('is perfect for the truth itself', () => {
    expect(alphaMetrics(truth, truth, W, H)).toEqual({ iou: 1, sad: 0, mse: 0, grad: 0, haze: 0 });
  });

  it('counts a haze of 0.2 over the background: SAD, MSE and haze by hand', () => {
    const hazy = plane((x) => (x < 20 ? 255 : 51));
    const metrics = alphaMetrics(hazy, truth, W, H);
    // 600 background pixels, each 0.2 off
    expect(metrics.sad).toBeCloseTo((600 * 0.2) / 1000, 6);
    expect(metrics.mse).toBeCloseTo(((600 * 0.04) / 1200) * 1000, 6);
    expect(metrics.haze).toBe(1);
    expect(metrics.iou).toBe(1);
    // a flat haze adds no gradient away from the edge, but the edge's step is smaller: some gradient error
    expect(metrics.grad).toBeGreaterThan(0);
  });

  it('gives a blurred edge a gradient error and a hard one shifted by a pixel a smaller IoU', () => {
    const ramp = plane((x) => Math.round(255 * Math.min(1, Math.max(0, (24 - x) / 8))));
    const shifted = plane((x) => (x < 21 ? 255 : 0));
    expect(alphaMetrics(ramp, truth, W, H).grad).toBeGreaterThan(alphaMetrics(shifted, truth, W, H).grad);
    expect(alphaMetrics(shifted, truth, W, H).iou).toBeCloseTo(20 / 21, 6);
    expect(alphaMetrics(shifted, truth, W, H).haze).toBeCloseTo(30 / 600, 6);
  });
});
