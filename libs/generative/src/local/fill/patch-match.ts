/**
 * Nearest-neighbour fields between the patches of an image being completed and the patches of its known part,
 * found by PatchMatch (Barnes, Shechtman, Finkelstein and Goldman, "PatchMatch: a randomized correspondence
 * algorithm for structural image editing", 2009): each target patch starts from a guess (random, or its coarser
 * level's match scaled up), then passes in alternating scan order take a neighbour's match shifted by one pixel
 * where it fits better (propagation: a good match spreads along coherent structure) and try random sources at
 * halving distances around the current one (random search). Patches are (2 RADIUS + 1)^2 pixels; distances are
 * sums of squared differences over the CHANNELS values of the target's pixels inside the canvas.
 */

/** Half the side of a patch: 7 x 7 patches. */
export const RADIUS = 3;
/**
 * Values per pixel: red, green, blue (0..255) and the detail the full-size image has there (detailChannel in
 * image-completion.ts), so that at coarse levels, where a sharp and a blurred stretch of a table look alike, a
 * patch next to a sharp border still matches sharp sources.
 */
export const CHANNELS = 4;

/**
 * Weight, in a patch distance, of a pixel that is only guessed (not known) against one that is known: a patch at
 * the border is matched mostly on the border's own pixels, so that its lines carry on into the fill instead of
 * agreeing with the guess (at first a smooth stretch, which the plainest patches match best).
 */
const GUESS_WEIGHT = 0.25;

/** One level of the completion pyramid (image-completion.ts). */
export interface CompletionLevel {
  width: number;
  height: number;
  /** CHANNELS values per pixel: the known pixels, and the current estimate of the unknown ones. */
  data: Float32Array;
  /** 1 where the pixel is known (the original's: at a coarser level, all four finer pixels were). */
  known: Uint8Array;
  /** 1 where a pixel may not be copied (the object the segmentation mask marks). */
  excluded: Uint8Array;
  /**
   * 1 on the object and within RADIUS px of it (nearObject in completion-pyramid.ts): known pixels there weigh
   * nothing in a patch distance. Set by completeImage on the coarser levels, where the structure of the fill is
   * decided: there the object and a sliver beside it (its shadow, a strip of table between it and the edge) say
   * nothing about what lies beyond the border. The full-size level leaves it unset, so that the fill lines up
   * with every pixel of the border.
   */
  nearObject?: Uint8Array;
}

/**
 * How many pixels each pixel's patch (clipped to the canvas) holds that are known (`bad`: that may not be copied:
 * unknown or excluded): a running sum along each row over the patch's width, kept for the patch's height of rows
 * in a ring, and a running sum down each column over those; O(1) per pixel, one array of the level's size.
 */
function patchCounts(level: CompletionLevel, bad = false): Uint8Array {
  const { width, height, known, excluded } = level;
  const span = 2 * RADIUS + 1;
  const ring = new Uint8Array(span * width);
  const column = new Uint8Array(width);
  const counts = new Uint8Array(width * height);
  const flag = (p: number) => (bad ? (known[p] === 0 || excluded[p] === 1 ? 1 : 0) : known[p]);
  const addRow = (y: number) => {
    const row = y * width;
    const sums = ring.subarray((y % span) * width, ((y % span) + 1) * width);
    let sum = 0;
    for (let x = 0; x < RADIUS && x < width; x++) sum += flag(row + x);
    for (let x = 0; x < width; x++) {
      if (x + RADIUS < width) sum += flag(row + x + RADIUS);
      sums[x] = sum;
      column[x] += sum;
      if (x >= RADIUS) sum -= flag(row + x - RADIUS);
    }
  };
  for (let y = 0; y < RADIUS && y < height; y++) addRow(y);
  for (let y = 0; y < height; y++) {
    if (y + RADIUS < height) addRow(y + RADIUS);
    counts.set(column, y * width);
    if (y >= RADIUS) {
      const leaving = ((y - RADIUS) % span) * width;
      for (let x = 0; x < width; x++) column[x] -= ring[leaving + x];
    }
  }
  return counts;
}

/**
 * The patch centres a level may copy from: those whose whole patch lies inside the canvas on known pixels that
 * are not excluded. Answers the map (1 = may be a source) and how many there are.
 */
export function sourceCentres(level: CompletionLevel): { valid: Uint8Array; count: number } {
  const { width, height } = level;
  const valid = patchCounts(level, true);
  let count = 0;
  for (let y = 0, p = 0; y < height; y++) {
    for (let x = 0; x < width; x++, p++) {
      const inside = x >= RADIUS && x < width - RADIUS && y >= RADIUS && y < height - RADIUS;
      valid[p] = inside && valid[p] === 0 ? 1 : 0;
      count += valid[p];
    }
  }
  return { valid, count };
}

/**
 * The centres whose patch holds at least one unknown pixel, as pixel indices in scan order, and the number of
 * known pixels in each pixel's patch (touchingKnown's input).
 */
export function targetCentres(level: CompletionLevel): { targets: Int32Array; knownIn: Uint8Array } {
  const { width, height } = level;
  const knownIn = patchCounts(level);
  // a pixel's patch holds an unknown pixel where it holds fewer known ones than its (clipped) area
  const columns = Uint8Array.from(
    { length: width },
    (_, x) => Math.min(x + RADIUS, width - 1) - Math.max(x - RADIUS, 0) + 1,
  );
  const each = (visit: (p: number) => void) => {
    for (let y = 0; y < height; y++) {
      const rows = Math.min(y + RADIUS, height - 1) - Math.max(y - RADIUS, 0) + 1;
      for (let x = 0, p = y * width; x < width; x++, p++) if (knownIn[p] < columns[x] * rows) visit(p);
    }
  };
  let count = 0;
  each(() => count++);
  const targets = new Int32Array(count);
  let k = 0;
  each((p) => (targets[k++] = p));
  return { targets, knownIn };
}

/** Of `targets` (pixel indices), the numbers of those whose patch holds a known pixel (`knownIn` > 0), in order. */
export function touchingKnown(targets: Int32Array, knownIn: Uint8Array): Int32Array {
  let count = 0;
  for (let t = 0; t < targets.length; t++) if (knownIn[targets[t]] > 0) count++;
  const touching = new Int32Array(count);
  for (let t = 0, k = 0; t < targets.length; t++) if (knownIn[targets[t]] > 0) touching[k++] = t;
  return touching;
}

/** The nearest-neighbour field of a level: a source centre and its distance for each target centre. */
export class PatchField {
  readonly source: Int32Array;
  readonly cost: Float32Array;
  /** Pixel index -> target number, -1 where the pixel is no target centre. */
  readonly targetAt: Int32Array;

  constructor(
    readonly level: CompletionLevel,
    readonly targets: Int32Array,
    private readonly valid: Uint8Array,
    private readonly random: () => number,
  ) {
    this.source = new Int32Array(targets.length);
    this.cost = new Float32Array(targets.length);
    this.targetAt = new Int32Array(level.width * level.height).fill(-1);
    for (let t = 0; t < targets.length; t++) this.targetAt[targets[t]] = t;
  }

  /** Every target starts from a random source. */
  randomise(): void {
    for (let t = 0; t < this.targets.length; t++) {
      this.source[t] = this.randomSource();
      this.cost[t] = this.distance(this.targets[t], this.source[t], Infinity);
    }
  }

  /**
   * Every target starts from the match of its parent at the coarser level (`coarser`, half the size), scaled
   * up and offset by the target's place within its parent; a random source where that is not a source here.
   * `measure`: the distances are measured at this level; else each target keeps its parent's.
   */
  inheritFrom(coarser: PatchField, measure = true): void {
    const { width } = this.level;
    const coarseWidth = coarser.level.width;
    const coarseHeight = coarser.level.height;
    for (let t = 0; t < this.targets.length; t++) {
      const p = this.targets[t];
      const px = p % width;
      const py = (p - px) / width;
      const cx = Math.min(px >> 1, coarseWidth - 1);
      const cy = Math.min(py >> 1, coarseHeight - 1);
      const parent = coarser.targetAt[cy * coarseWidth + cx];
      let s = -1;
      let inherited = Infinity;
      if (parent >= 0) {
        inherited = coarser.cost[parent];
        const c = coarser.source[parent];
        const sx = (c % coarseWidth) * 2 + (px - cx * 2);
        const sy = Math.floor(c / coarseWidth) * 2 + (py - cy * 2);
        if (sx < width && sy < this.level.height && this.valid[sy * width + sx] === 1) s = sy * width + sx;
      }
      this.source[t] = s >= 0 ? s : this.randomSource();
      this.cost[t] = measure || s < 0 ? this.distance(p, this.source[t], Infinity) : inherited;
    }
  }

  /** Distances of the current matches again (after the level's data changed); `only`: of these targets. */
  refresh(only?: Int32Array): void {
    if (only) for (const t of only) this.cost[t] = this.distance(this.targets[t], this.source[t], Infinity);
    else
      for (let t = 0; t < this.targets.length; t++)
        this.cost[t] = this.distance(this.targets[t], this.source[t], Infinity);
  }

  /**
   * `passes` PatchMatch passes, alternating scan order: propagation from the two neighbours already visited, then
   * random search from `searchRadius` px (at most the level's size) down to 1. `only`: just these targets (their
   * numbers, in scan order).
   */
  search(passes: number, searchRadius: number, only?: Int32Array): void {
    const { width, height } = this.level;
    const radius0 = Math.min(searchRadius, Math.max(width, height));
    const count = only ? only.length : this.targets.length;
    for (let pass = 0; pass < passes; pass++) {
      const forward = pass % 2 === 0;
      const step = forward ? 1 : -1;
      for (let k = 0; k < count; k++) {
        const i = forward ? k : count - 1 - k;
        const t = only ? only[i] : i;
        const p = this.targets[t];
        const px = p % width;
        // propagation: the neighbour before along x and along y, its source moved by one the same way
        if (px - step >= 0 && px - step < width) this.tryNeighbour(t, p, p - step, step);
        const above = p - step * width;
        if (above >= 0 && above < width * height) this.tryNeighbour(t, p, above, step * width);
        // random search around the current source
        for (let r = radius0; r >= 1; r >>= 1) {
          const s = this.source[t];
          const sx = (s % width) + Math.round((this.random() * 2 - 1) * r);
          const sy = Math.floor(s / width) + Math.round((this.random() * 2 - 1) * r);
          if (sx < 0 || sy < 0 || sx >= width || sy >= height) continue;
          this.tryCandidate(t, p, sy * width + sx);
        }
      }
    }
  }

  private tryNeighbour(t: number, p: number, neighbour: number, shift: number): void {
    const n = this.targetAt[neighbour];
    if (n < 0) return;
    const candidate = this.source[n] + shift;
    if (candidate < 0 || candidate >= this.valid.length) return;
    // a shift along x must stay on the same row
    if (
      Math.abs(shift) === 1 &&
      Math.floor(candidate / this.level.width) !== Math.floor(this.source[n] / this.level.width)
    )
      return;
    this.tryCandidate(t, p, candidate);
  }

  private tryCandidate(t: number, p: number, s: number): void {
    if (s === this.source[t] || this.valid[s] !== 1) return;
    const d = this.distance(p, s, this.cost[t]);
    if (d < this.cost[t]) {
      this.cost[t] = d;
      this.source[t] = s;
    }
  }

  /** The source centres as a list, made when a random one is first asked for (most levels inherit theirs). */
  private sources?: Int32Array;

  private randomSource(): number {
    if (!this.sources) {
      let count = 0;
      for (let p = 0; p < this.valid.length; p++) count += this.valid[p];
      this.sources = new Int32Array(count);
      for (let p = 0, k = 0; p < this.valid.length; p++) if (this.valid[p] === 1) this.sources[k++] = p;
    }
    return this.sources[Math.floor(this.random() * this.sources.length)];
  }

  /** Sum of squared differences between the patches at p (clipped to the canvas) and s; stops past `limit`. */
  distance(p: number, s: number, limit: number): number {
    const { width, height, data, known } = this.level;
    const ignored = this.level.nearObject;
    const px = p % width;
    const py = (p - px) / width;
    const x0 = Math.max(-RADIUS, -px);
    const x1 = Math.min(RADIUS, width - 1 - px);
    const y0 = Math.max(-RADIUS, -py);
    const y1 = Math.min(RADIUS, height - 1 - py);
    let sum = 0;
    for (let dy = y0; dy <= y1; dy++) {
      let a = ((p + dy * width + x0) * CHANNELS) | 0;
      let b = ((s + dy * width + x0) * CHANNELS) | 0;
      let k = p + dy * width + x0;
      for (let dx = x0; dx <= x1; dx++, a += CHANNELS, b += CHANNELS, k++) {
        const r = data[a] - data[b];
        const g = data[a + 1] - data[b + 1];
        const l = data[a + 2] - data[b + 2];
        const d = data[a + 3] - data[b + 3];
        const e = r * r + g * g + l * l + d * d;
        sum += known[k] === 0 ? e * GUESS_WEIGHT : ignored !== undefined && ignored[k] === 1 ? 0 : e;
      }
      if (sum >= limit) return sum;
    }
    return sum;
  }
}
