import { cropPixels, type RawPixels } from '../workers/raw-pixels';
import { backgroundColour, sampleBilinear } from './background-colour';
import { flood8 } from './flood';
import { dilate, erode, invert, maskBox } from './morphology';

/**
 * Enclosed background: the parts of what the network marked that show the backdrop through the object (a ring's
 * inside, the gaps between stems, a wheel between its spokes). cutout-refine.ts frees them for its graph cut.
 * The tuning is CUTOUT's (cutout-refine.ts), where each value is described.
 */
export interface HoleTuning {
  holeMargin: number;
  holeArea: number;
  holeShare: number;
  holeClose: number;
  textureRatio: number;
  backdropShift: number;
  around: number;
}

/**
 * What the search reads, named (several masks of one type side by side): `within`, where holes are looked for (all
 * but the sure background); the network's sure foreground and background; the pixels typical of the backdrop; each
 * pixel's cost under the object's and the backdrop's colour models; the backdrop's mean texture ({@link meanTexture}
 * of the whole image's sure background).
 */
export interface HoleInput {
  tuning: HoleTuning;
  within: Uint8Array;
  fgSure: Uint8Array;
  bgSure: Uint8Array;
  typical: Uint8Array;
  fgCost: Float32Array;
  bgCost: Float32Array;
  backdropTexture: number;
}

/**
 * The pixels of `within` (all but the sure background) to re-decide as possible enclosed background: connected
 * parts (8-connected, the sure foreground and the unsure band each on its own) of typical pixels the background
 * model explains better by tuning.holeMargin, at least `holeArea` square coarse pixels each, with the texture of
 * the backdrop's pixels of their colour and the backdrop's mean colour, all of them together less than `holeShare` of `within`. 1 where re-decided.
 */
export function enclosedBackground(image: RawPixels, input: HoleInput, coarsePixel: number): Uint8Array {
  const { tuning, within, fgSure, bgSure, typical, fgCost, bgCost, backdropTexture } = input;
  const { width, height } = image;
  const n = width * height;
  const candidate = new Uint8Array(n);
  let object = 0;
  for (let i = 0; i < n; i++) {
    if (!within[i]) continue;
    object++;
    if (typical[i] && bgCost[i] < fgCost[i] - tuning.holeMargin) candidate[i] = 1;
  }
  // a hole's own speckles of other colours (the gravel's dark stones) join it: the candidates closed (dilated,
  // then eroded) by `holeClose`, so the gaps fill but the region does not grow onto the object
  const close = Math.max(1, Math.round(tuning.holeClose * coarsePixel));
  const grown = erode(dilate(candidate, width, height, close), width, height, close);
  const region = new Uint8Array(n);
  for (let i = 0; i < n; i++) region[i] = within[i] && grown[i] ? 1 : 0;
  const minArea = tuning.holeArea * coarsePixel * coarsePixel;
  const out = new Uint8Array(n);
  const stack = new Int32Array(n);
  const members: number[] = [];
  let total = 0;
  let backdrop: LocalBackdrop | undefined;
  let sample: BackdropSample | undefined;
  for (let start = 0; start < n; start++) {
    if (region[start] !== 1) continue;
    region[start] = 2;
    stack[0] = start;
    members.length = 0;
    members.push(start);
    let seeds = candidate[start];
    flood8(stack, 1, width, height, (next) => {
      // the network's sure object and its unsure edge apart: a gap between stems is not judged with a pot's side
      if (region[next] !== 1 || fgSure[next] !== fgSure[start]) return false;
      region[next] = 2;
      members.push(next);
      seeds += candidate[next];
      return true;
    });
    if (seeds < minArea) continue;
    // the texture of the candidates' own inside (not across the edges of the stems around them)
    const inside = members.filter((i) => candidate[i] && candidate[i + 1] && candidate[i + width]);
    // judged against the backdrop's pixels of its colour where there are enough: mortar against mortar
    sample ??= backdropSample(image, bgSure);
    const texture = textureOfColour(image, sample, inside) ?? backdropTexture;
    if (!sameTexture(meanTexture(image, inside), texture, tuning.textureRatio)) continue;
    // the backdrop itself, seen through the object: not a colour near it (a white product a shade off its white)
    backdrop ??= localBackdrop(image, bgSure, within, Math.max(1, Math.round(tuning.around * coarsePixel)));
    if (backdropShift(image, inside, backdrop) > tuning.backdropShift) continue;
    total += seeds;
    for (const at of members) out[at] = 1;
  }
  if (total === 0 || total >= tuning.holeShare * object) return new Uint8Array(n);
  // up to the object's edge: the pixels there blend both colours and were no candidates; the cut decides them
  const reach = dilate(out, width, height, close);
  for (let i = 0; i < n; i++) out[i] = reach[i] && within[i] ? 1 : 0;
  return out;
}

/**
 * The backdrop's local colour near the object (backgroundColour over the sure background, within about `radius`),
 * where some sure background lies within 4 `radius` (elsewhere nothing says what the backdrop would be: deep
 * inside a large object), and the backdrop's own spread about that local colour (the RMS of its pixels'
 * differences to it near the object, per channel, at least BACKDROP_NOISE levels): flat paper a level or two,
 * gravel tens. Worked out over the object's box widened by 5 `radius` only (`box`, in the image's pixels).
 */
export interface LocalBackdrop {
  colour: RawPixels;
  reached: Uint8Array;
  spread: [number, number, number];
  box: { left: number; top: number; width: number; height: number };
}

export function localBackdrop(image: RawPixels, bgSure: Uint8Array, object: Uint8Array, radius: number): LocalBackdrop {
  const box = maskBox(object, image.width, image.height, 5 * radius, Math.max(1, Math.floor(radius / 2)));
  const { width, height } = box;
  // `image` is the refinement's: 3 channels
  const crop = cropPixels(image, box);
  const pixels = crop.data;
  const sure = cropPixels({ data: bgSure, width: image.width, height: image.height, channels: 1 }, box).data;
  const mask = new Uint8Array(sure.length);
  for (let o = 0; o < sure.length; o++) mask[o] = sure[o] ? 0 : 255;
  const colour = backgroundColour(crop, mask, radius);
  const reached = dilate(sure, width, height, 4 * radius);
  const sx = colour.width / width;
  const sy = colour.height / height;
  const b = [0, 0, 0];
  const squares = [0, 0, 0];
  let count = 0;
  // a sample of the sure background near the object (about 20,000 pixels, on a fixed stride)
  const near = dilate(invert(sure), width, height, radius);
  const step = Math.max(1, Math.floor(sure.length / 200_000));
  for (let o = 0; o < sure.length; o += step) {
    if (!sure[o] || !near[o]) continue;
    const x = o % width;
    sampleBilinear(colour, (x + 0.5) * sx - 0.5, ((o - x) / width + 0.5) * sy - 0.5, b);
    for (let c = 0; c < 3; c++) squares[c] += (pixels[o * 3 + c] - b[c]) ** 2;
    count++;
  }
  const spread = squares.map((sq) => Math.max(BACKDROP_NOISE, Math.sqrt(sq / Math.max(1, count)))) as [
    number,
    number,
    number,
  ];
  return { colour, reached, spread, box };
}

/**
 * How far the pixels `inside` lie, on average, from the backdrop's local colour (only those the backdrop reaches),
 * in units of the backdrop's own spread about it: the largest over the channels. A hole that shows the backdrop
 * sits at about 0 however busy the backdrop is (its texture averages out); a label a shade off a plain wall does
 * not. Infinity when the backdrop reaches none of them.
 */
function backdropShift(image: RawPixels, inside: number[], backdrop: LocalBackdrop): number {
  const { width, data, channels } = image;
  if (inside.length === 0) return Infinity;
  const { colour, reached, spread, box } = backdrop;
  const sx = colour.width / box.width;
  const sy = colour.height / box.height;
  const b = [0, 0, 0];
  const offset = [0, 0, 0];
  let count = 0;
  for (const i of inside) {
    const x = (i % width) - box.left;
    const y = Math.floor(i / width) - box.top;
    if (x < 0 || y < 0 || x >= box.width || y >= box.height || !reached[y * box.width + x]) continue;
    sampleBilinear(colour, (x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5, b);
    for (let c = 0; c < 3; c++) offset[c] += data[i * channels + c] - b[c];
    count++;
  }
  if (count === 0) return Infinity;
  return Math.max(...offset.map((sum, c) => Math.abs(sum / count) / spread[c]));
}

/**
 * A sample of the sure background (at most COLOUR_SAMPLES pixels, on a fixed stride) that has a right and a lower
 * neighbour in it: each pixel's colour and its neighbours' (9 values), and its local contrast (meanTexture's).
 */
interface BackdropSample {
  colours: Uint8Array;
  contrast: Float32Array;
}

function backdropSample(image: RawPixels, bgSure: Uint8Array): BackdropSample {
  const { data, channels, width, height } = image;
  const stride = Math.max(1, Math.floor(bgSure.length / COLOUR_SAMPLES));
  const picked: number[] = [];
  for (let i = 0; i < bgSure.length; i += stride) {
    if (bgSure[i] && i % width < width - 1 && i < (height - 1) * width && bgSure[i + 1] && bgSure[i + width]) {
      picked.push(i);
    }
  }
  const colours = new Uint8Array(picked.length * 9);
  const contrast = new Float32Array(picked.length);
  for (let k = 0; k < picked.length; k++) {
    const p = picked[k] * channels;
    const right = p + channels;
    const below = p + width * channels;
    let sum = 0;
    for (let c = 0; c < 3; c++) {
      colours[k * 9 + c] = data[p + c];
      colours[k * 9 + 3 + c] = data[right + c];
      colours[k * 9 + 6 + c] = data[below + c];
      sum += Math.abs(data[p + c] - data[right + c]) + Math.abs(data[p + c] - data[below + c]);
    }
    contrast[k] = sum;
  }
  return { colours, contrast };
}

/**
 * The mean texture of the sure background's pixels of the colour of `inside` (each channel within COLOUR_NEAR of
 * its mean, and so their right and lower neighbours, as `inside` is taken), or undefined where there are too few
 * (COLOUR_COUNT): a brick wall's mortar is smooth, its bricks are rough, and a gap that shows mortar is judged
 * against the mortar.
 */
function textureOfColour(image: RawPixels, sample: BackdropSample, inside: number[]): number | undefined {
  const { data, channels } = image;
  if (inside.length === 0) return undefined;
  const mean = [0, 0, 0];
  for (const i of inside) for (let c = 0; c < 3; c++) mean[c] += data[i * channels + c] / inside.length;
  const { colours, contrast } = sample;
  let sum = 0;
  let count = 0;
  for (let k = 0; k < contrast.length; k++) {
    let near = true;
    for (let j = 0; j < 9 && near; j++) near = Math.abs(colours[k * 9 + j] - mean[j % 3]) <= COLOUR_NEAR;
    if (!near) continue;
    sum += contrast[k];
    count++;
  }
  return count < COLOUR_COUNT ? undefined : sum / count;
}

const COLOUR_NEAR = 24;
const COLOUR_COUNT = 200;
const COLOUR_SAMPLES = 50_000;

/** The least spread of a backdrop's colour (levels): a flat colour's JPEG noise. */
const BACKDROP_NOISE = 2;

/**
 * The mean local contrast of `image` over the pixels `where` selects (a mask, or a list of pixel indices): the sum
 * over channels of the absolute differences to the right and lower neighbours.
 */
export function meanTexture(image: RawPixels, where: Uint8Array | number[]): number {
  let sum = 0;
  let count = 0;
  forTexture(image, where, (contrast) => {
    sum += contrast;
    count++;
  });
  return count === 0 ? 0 : sum / count;
}

/**
 * The median of the local contrast {@link meanTexture} averages: the texture of most of the pixels `where`
 * selects, which a minority of others (strands of hair over a plain wall) does not move.
 */
export function medianTexture(image: RawPixels, where: Uint8Array): number {
  const histogram = new Uint32Array(6 * 255 + 1);
  let count = 0;
  forTexture(image, where, (contrast) => {
    histogram[contrast]++;
    count++;
  });
  let seen = 0;
  for (let value = 0; value < histogram.length; value++) {
    seen += histogram[value];
    if (seen * 2 >= count && count > 0) return value;
  }
  return 0;
}

/** Calls `each` with the local contrast of every pixel `where` selects that has a right and a lower neighbour. */
function forTexture(image: RawPixels, where: Uint8Array | number[], each: (contrast: number) => void): void {
  const { data, width, height, channels } = image;
  const add = (i: number) => {
    const x = i % width;
    if (x + 1 >= width || i + width >= width * height) return;
    const p = i * channels;
    let contrast = 0;
    for (let c = 0; c < 3; c++) {
      contrast +=
        Math.abs(data[p + c] - data[p + channels + c]) + Math.abs(data[p + c] - data[p + width * channels + c]);
    }
    each(contrast);
  };
  if (Array.isArray(where)) for (const i of where) add(i);
  else for (let i = 0; i < where.length; i++) if (where[i]) add(i);
}

/**
 * Whether a region's texture could be the background's: a ring's inside shows the same gravel as around it,
 * while a terracotta pot on a wooden table has the table's colours but not its grain, so a region markedly
 * smoother than the background (by more than `ratio`, with a floor of a few levels so that two flat
 * areas compare as the same) is not taken for it. A rougher one is: a gap between stems picks up the JPEG's
 * ringing around them (the plant sample's gap: 4.9 levels against its wall's 0.8).
 */
function sameTexture(region: number, background: number, ratio: number): boolean {
  return (region + TEXTURE_FLOOR) / (background + TEXTURE_FLOOR) >= 1 / ratio;
}

const TEXTURE_FLOOR = 3;
