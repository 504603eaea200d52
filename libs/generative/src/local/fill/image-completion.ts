import { depthOf, downsample, nearObject, upsampleInto, withDetail } from './completion-pyramid';
import { onionPeelInto, pushPullInto } from './first-guess';
import {
  CHANNELS,
  PatchField,
  RADIUS,
  sourceCentres,
  targetCentres,
  touchingKnown,
  type CompletionLevel,
} from './patch-match';

/**
 * Image completion by patch search and voting, coarse to fine (Wexler, Shechtman and Irani, "Space-time completion
 * of video", 2007, with PatchMatch as the search): at the coarsest level, the unknown pixels are first
 * interpolated from the known pixels away from the object, then synthesised ring by ring from the border inward
 * (first-guess.ts); then, at each level, every patch that holds an unknown pixel is matched to its
 * nearest patch of the known part (patch-match.ts), and each unknown pixel becomes the weighted mean of what the
 * matched patches that cover it put there (a vote: well-matched patches weigh more); repeated, the fill converges
 * to one that is made of the image's own patches everywhere and agrees with itself where they overlap, so that
 * textures, smooth areas and edges continue without seams or tiles. Each level starts from the coarser one's
 * matches scaled up. Patches that touch an excluded pixel (the object) are never copied.
 */

/**
 * Time against quality: EM iterations per level and PatchMatch passes per iteration; levels larger than
 * `workPixels` are not searched: their matches are the coarser level's scaled up (only the border's are fitted
 * again) and each pixel copied from its own (copyVote): the detail of the full-size image, where the structure was
 * settled below.
 */
export interface CompletionSettings {
  iterations: { coarsest: number; middle: number; finest: number };
  passes: number;
  workPixels: number;
}

export interface CompletionInput {
  /** 3 channels; unknown pixels' values are ignored. */
  data: Uint8Array;
  width: number;
  height: number;
  /** 1 where the pixel is known. */
  known: Uint8Array;
  /** 1 where a known pixel may not be copied; optional. */
  excluded?: Uint8Array;
  /** The known part's shorter side, px: the pyramid stops where it would hold too few patches. */
  knownSide: number;
}

export interface CompletionResult {
  /** 3 channels: the known pixels unchanged, the unknown ones filled. */
  data: Uint8Array;
  /** What the fill would put on the known pixels that its patches cover, next to the unknown part. */
  border: BorderVote;
}

/** The last vote at full size on known pixels: their indices in scan order, and CHANNELS values for each. */
export interface BorderVote {
  pixels: Int32Array;
  values: Float32Array;
}

/** The coarsest level keeps at least this many pixels on the known part's shorter side. */
const COARSEST_SIDE = 48;
/**
 * A match's vote weighs CONFIDENCE^-d, d its centre's distance into the unknown part in pixels of the level
 * (Wexler et al.'s 1.3): patches tied to the known border lead, so that it continues outward without a seam.
 */
const CONFIDENCE = 1.3;
const MAX_LEVELS = 8;
/**
 * Random search reach, px, at every level but the coarsest (and of the border's targets on the levels that are not
 * searched): the coarser levels found the structure already.
 */
const LOCAL_SEARCH = 8;
/** Share of matches whose error sets the vote's scale (Wexler et al. use the 75th percentile). */
const SCALE_PERCENTILE = 0.75;

export function completeImage(
  input: CompletionInput,
  settings: CompletionSettings,
  random: () => number,
): CompletionResult {
  const finest: CompletionLevel = {
    width: input.width,
    height: input.height,
    data: withDetail(input.data, input.width, input.height, input.known),
    known: input.known,
    excluded: input.excluded ?? new Uint8Array(input.width * input.height),
  };
  const levels = [finest];
  let side = input.knownSide;
  while (levels.length < MAX_LEVELS && side / 2 >= COARSEST_SIDE) {
    levels.push(downsample(levels[levels.length - 1]));
    side /= 2;
  }
  // an image that is all object: copy from it rather than leave the canvas empty
  if (sourceCentres(levels[levels.length - 1]).count === 0) for (const level of levels) level.excluded.fill(0);
  if (input.excluded) for (const level of levels.slice(1)) level.nearObject = nearObject(level, RADIUS);

  const coarsest = levels[levels.length - 1];
  pushPullInto(coarsest);
  onionPeelInto(coarsest, sourceCentres(coarsest).valid, settings.passes, random);
  let previous: PatchField | undefined;
  let borderVote: BorderVote | undefined;
  for (let index = levels.length - 1; index >= 0; index--) {
    const level = levels[index];
    const { valid, count } = sourceCentres(level);
    if (count === 0) throw new Error('image completion: no known patch to copy from');
    const { targets, knownIn } = targetCentres(level);
    const field = new PatchField(level, targets, valid, random);
    if (previous && level.width * level.height > settings.workPixels) {
      upsampleInto(previous.level, level);
      field.inheritFrom(previous, false);
      // where the fill meets the known part, the matches are fitted again at this level's detail: the copied
      // pixels next to the border line up with it
      const border = touchingKnown(targets, knownIn);
      field.refresh(border);
      field.search(settings.passes, LOCAL_SEARCH, border);
      const known = copyVote(field, index === 0);
      if (index === 0) borderVote = known;
      previous = field;
      continue;
    }
    const depth = depthOf(level);
    if (previous) {
      // the coarser level's matches, copied at this level's detail: the first guess here (the coarser pixels
      // scaled up would be a blur, and a blur matches the image's smooth patches best)
      upsampleInto(previous.level, level);
      field.inheritFrom(previous);
      writeUnknown(level, voteOf(field, depth, 'uniform'));
      field.refresh();
    } else {
      field.randomise();
    }
    const iterations =
      index === levels.length - 1
        ? settings.iterations.coarsest
        : index === 0
          ? settings.iterations.finest
          : settings.iterations.middle;
    const reach = index < levels.length - 1 ? LOCAL_SEARCH : Math.max(level.width, level.height);
    for (let i = 0; i < iterations; i++) {
      field.search(settings.passes, reach);
      const vote = voteOf(field, depth);
      writeUnknown(level, vote);
      if (index === 0 && i === iterations - 1) borderVote = knownOf(level, vote);
      else field.refresh();
    }
    previous = field;
  }
  const data = input.data.slice();
  for (let p = 0; p < input.known.length; p++) {
    if (input.known[p] === 1) continue;
    for (let c = 0; c < 3; c++) data[p * 3 + c] = Math.round(finest.data[p * CHANNELS + c]);
  }
  return { data, border: borderVote ?? { pixels: new Int32Array(0), values: new Float32Array(0) } };
}

/**
 * What the matched patches put at each pixel they cover: the mean weighted by exp(-e / 2 s^2), e a match's mean
 * squared error per sample and s^2 the 75th percentile of e over the level (a poor match counts little), or the
 * plain mean (`uniform`). NaN where no patch covers the pixel.
 */
function voteOf(field: PatchField, depth: Float32Array, how: 'mean' | 'uniform' = 'mean'): Float32Array {
  const { level, targets, source } = field;
  const { width, height, data } = level;
  const sums = new Float32Array(width * height * CHANNELS);
  const weights = new Float32Array(width * height);
  const fit = how === 'uniform' ? undefined : fitWeights(field);
  // CONFIDENCE^-(depth of the patch - depth of the pixel): the patches covering a pixel are within RADIUS of it
  const lead = Array.from({ length: 4 * RADIUS + 1 }, (_, k) => CONFIDENCE ** -(k - 2 * RADIUS));
  for (let t = 0; t < targets.length; t++) {
    const p = targets[t];
    const s = source[t];
    const patchFit = fit ? fit[t] : 1;
    const px = p % width;
    const py = (p - px) / width;
    const x0 = Math.max(-RADIUS, -px);
    const x1 = Math.min(RADIUS, width - 1 - px);
    for (let dy = Math.max(-RADIUS, -py); dy <= Math.min(RADIUS, height - 1 - py); dy++) {
      for (let dx = x0; dx <= x1; dx++) {
        const q = p + dy * width + dx;
        const weight = patchFit * lead[Math.max(0, Math.min(4 * RADIUS, depth[p] - depth[q] + 2 * RADIUS))];
        const from = (s + dy * width + dx) * CHANNELS;
        const to = q * CHANNELS;
        for (let c = 0; c < CHANNELS; c++) sums[to + c] += weight * data[from + c];
        weights[q] += weight;
      }
    }
  }
  for (let q = 0; q < weights.length; q++) {
    const w = weights[q];
    for (let c = 0; c < CHANNELS; c++) sums[q * CHANNELS + c] = w > 0 ? sums[q * CHANNELS + c] / w : Number.NaN;
  }
  return sums;
}

/**
 * The fill of a level that is not searched (its matches are the coarser level's scaled up): each target centre
 * takes what its own match has there, a copy of the known image at this level's detail. Where a neighbour's match
 * is another copy (its offset differs), the pixel is the mean of what its 3 x 3 neighbours' matches put there
 * instead: the line where two copied areas meet is softened, where a plain copy would leave a step on the grid
 * the scaled-up matches share (a mean everywhere would blur the texture: the wood of a table lost half its grain).
 * Written into the level's unknown pixels in place (what is read is the sources' known pixels only); what it would
 * put on the known targets is answered when `border` is set.
 */
function copyVote(field: PatchField, border: boolean): BorderVote | undefined {
  const { level, targets, source, targetAt } = field;
  const { width, height, data, known } = level;
  let knownTargets = 0;
  if (border) for (let t = 0; t < targets.length; t++) knownTargets += known[targets[t]];
  const pixels = new Int32Array(knownTargets);
  const values = new Float32Array(knownTargets * CHANNELS);
  let k = 0;
  for (let t = 0; t < targets.length; t++) {
    const q = targets[t];
    if (known[q] === 1 && !border) continue;
    let to = q * CHANNELS;
    let out = data;
    if (known[q] === 1) {
      pixels[k] = q;
      to = k++ * CHANNELS;
      out = values;
    }
    const qx = q % width;
    const qy = (q - qx) / width;
    const x0 = qx > 0 ? -1 : 0;
    const x1 = qx < width - 1 ? 1 : 0;
    const y0 = qy > 0 ? -1 : 0;
    const y1 = qy < height - 1 ? 1 : 0;
    const offset = source[t] - q;
    let coherent = true;
    for (let dy = y0; dy <= y1 && coherent; dy++) {
      for (let dx = x0; dx <= x1; dx++) {
        const n = targetAt[q + dy * width + dx];
        if (n >= 0 && source[n] - targets[n] !== offset) {
          coherent = false;
          break;
        }
      }
    }
    if (coherent) {
      const from = source[t] * CHANNELS;
      for (let c = 0; c < CHANNELS; c++) out[to + c] = data[from + c];
      continue;
    }
    let count = 0;
    let r = 0;
    let g = 0;
    let b = 0;
    let d = 0;
    for (let dy = y0; dy <= y1; dy++) {
      for (let dx = x0; dx <= x1; dx++) {
        const n = targetAt[q + dy * width + dx];
        if (n < 0) continue;
        // the neighbour's match, at q's place within that neighbour's patch
        const from = (source[n] - dy * width - dx) * CHANNELS;
        r += data[from];
        g += data[from + 1];
        b += data[from + 2];
        d += data[from + 3];
        count++;
      }
    }
    out[to] = r / count;
    out[to + 1] = g / count;
    out[to + 2] = b / count;
    out[to + 3] = d / count;
  }
  return border ? { pixels, values } : undefined;
}

/** The known pixels that `vote` covers (it is not NaN there), with its values. */
function knownOf(level: CompletionLevel, vote: Float32Array): BorderVote {
  const { known } = level;
  let count = 0;
  for (let q = 0; q < known.length; q++) if (known[q] === 1 && !Number.isNaN(vote[q * CHANNELS])) count++;
  const pixels = new Int32Array(count);
  const values = new Float32Array(count * CHANNELS);
  for (let q = 0, k = 0; q < known.length; q++) {
    if (known[q] === 0 || Number.isNaN(vote[q * CHANNELS])) continue;
    pixels[k] = q;
    values.set(vote.subarray(q * CHANNELS, (q + 1) * CHANNELS), k++ * CHANNELS);
  }
  return { pixels, values };
}

/** exp(-e / 2 s^2) + 1e-6 per target: e its match's mean squared error per value, s^2 the level's 75th percentile. */
function fitWeights(field: PatchField): Float32Array {
  const { level, targets, cost } = field;
  const errors = new Float32Array(targets.length);
  for (let t = 0; t < targets.length; t++)
    errors[t] = cost[t] / (samplesAt(targets[t], level.width, level.height) * CHANNELS);
  const scale = 2 * Math.max(1, percentile(errors, SCALE_PERCENTILE));
  for (let t = 0; t < targets.length; t++) errors[t] = Math.exp(-errors[t] / scale) + 1e-6;
  return errors;
}

function writeUnknown(level: CompletionLevel, vote: Float32Array): void {
  for (let q = 0; q < level.known.length; q++) {
    if (level.known[q] === 1 || Number.isNaN(vote[q * CHANNELS])) continue;
    for (let c = 0; c < CHANNELS; c++) level.data[q * CHANNELS + c] = vote[q * CHANNELS + c];
  }
}

/** Pixels of the patch centred at p that lie on the canvas. */
function samplesAt(p: number, width: number, height: number): number {
  const px = p % width;
  const py = (p - px) / width;
  const w = Math.min(RADIUS, width - 1 - px) - Math.max(-RADIUS, -px) + 1;
  const h = Math.min(RADIUS, height - 1 - py) - Math.max(-RADIUS, -py) + 1;
  return w * h;
}

/** The `share` quantile of up to 4096 evenly spaced values. */
function percentile(values: Float32Array, share: number): number {
  if (values.length === 0) return 0;
  const step = Math.max(1, Math.floor(values.length / 4096));
  const sample: number[] = [];
  for (let i = 0; i < values.length; i += step) sample.push(values[i]);
  sample.sort((a, b) => a - b);
  return sample[Math.min(sample.length - 1, Math.floor(sample.length * share))];
}
