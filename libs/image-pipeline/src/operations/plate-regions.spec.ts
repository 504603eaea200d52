import { describe, expect, it } from 'vitest';
import type { TextRegion } from '../ports/text-detector.port';
import { plateCandidates, scaledCandidate } from './plate-regions';

const IMAGE = { width: 1200, height: 800 };

/** An axis-aligned region from its left, top, width and height. */
function box(left: number, top: number, width: number, height: number): TextRegion {
  return {
    points: [
      { x: left, y: top },
      { x: left + width, y: top },
      { x: left + width, y: top + height },
      { x: left, y: top + height },
    ],
    score: 0.9,
  };
}

describe('plateCandidates', () => {
  it('keeps a line shaped like a plate’s characters, and returns its box', () => {
    const [candidate, ...rest] = plateCandidates([box(100, 100, 200, 50)], IMAGE);
    expect(rest).toEqual([]);
    expect(candidate.height).toBeCloseTo(50);
    const xs = candidate.text.map((p) => p.x).sort((a, b) => a - b);
    const ys = candidate.text.map((p) => p.y).sort((a, b) => a - b);
    expect([xs[0], xs[3], ys[0], ys[3]].map(Math.round)).toEqual([100, 300, 100, 150]);
  });

  it.each([
    ['a single letter', box(100, 100, 60, 80)],
    ['a long line of words', box(100, 100, 900, 40)],
    ['text too small to read', box(100, 100, 15, 4)],
    ['text filling the frame', box(0, 0, 1190, 400)],
  ])('drops %s', (_name, region) => {
    expect(plateCandidates([region], IMAGE)).toEqual([]);
  });

  it('joins the pieces of one line the detector split at a wide space (“NP” and “2650”)', () => {
    const candidates = plateCandidates([box(100, 100, 60, 50), box(190, 100, 140, 50)], IMAGE);
    expect(candidates).toHaveLength(1);
    const xs = candidates[0].text.map((p) => p.x);
    expect(Math.round(Math.min(...xs))).toBe(100);
    expect(Math.round(Math.max(...xs))).toBe(330);
  });

  it('drops a paragraph’s short last line, keeps two short stacked lines (a two-line plate)', () => {
    const paragraph = [box(100, 100, 700, 30), box(100, 140, 700, 30), box(100, 180, 150, 30)];
    expect(plateCandidates(paragraph, IMAGE)).toEqual([]);
    const twoLines = [box(500, 500, 120, 40), box(500, 550, 110, 40)];
    expect(plateCandidates(twoLines, IMAGE)).toHaveLength(2);
  });

  it('keeps a plate under a US state name (much smaller text above it)', () => {
    expect(plateCandidates([box(100, 100, 160, 14), box(100, 120, 200, 50)], IMAGE)).toHaveLength(1);
  });

  it('scales a candidate to the full image', () => {
    const [candidate] = plateCandidates([box(100, 100, 200, 50)], IMAGE);
    const scaled = scaledCandidate(candidate, { x: 2, y: 2 });
    expect(scaled.height).toBeCloseTo(100);
    expect(Math.max(...scaled.text.map((p) => p.x))).toBeCloseTo(600);
  });
});
