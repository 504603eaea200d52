import { placePlane, type RawPixels } from '../workers/raw-pixels';
import { solveAlpha } from './alpha-matting';
import { colourCost, colourCosts, fitColourModel, type ColourModel } from './colour-model';
import { cutGrid } from './graph-cut';
import { dilate, erode, invert } from './morphology';
import { enclosedBackground, meanTexture, medianTexture } from './enclosed-background';
import { STRANDS, unmixStrands } from './strand-unmix';

/**
 * How the network's mask is re-decided with the image's colours (matte.kernel.ts calls {@link refineCutout} on
 * the guided filter's answer, the prior). Sizes are in coarse pixels (one pixel of the model's input).
 * - `sure`, `unsure`: a prior at or above `sure` is sure foreground, at or below `unsure` sure background, once
 *   each region has lost `erode` coarse pixels at its border; the rest is unknown.
 * - `components`, `samples`: the colour models, Gaussian mixtures over RGB fitted to the sure regions.
 * - `priorWeight`: how much the network's own answer counts beside the colours in the cut (per -ln p).
 * - `smoothness`: the cut's contrast-sensitive pairwise weight (GrabCut's gamma); 20, not GrabCut's 50: at 50 the
 *   wedges between a wheel's spokes stayed filled (the cost of their long outline beat their colour).
 * - `hole*`, `typical`, `backdropShift`, `around`: enclosed background. Pixels the network did not call sure
 *   background, whose colour is as typical of the backdrop around the object (a ring `around` coarse pixels wide)
 *   as the `typical` quantile of its own pixels, and that the background model explains better by `holeMargin`
 *   nats, become free for the cut (the network's say dropped) when they form parts of at least `holeArea` square
 *   coarse pixels, whose mean colour is the backdrop's around them within `backdropShift` of its spread, and are
 *   together less than `holeShare` of what the network marked: a ring's inside, the gaps between stems, a wheel
 *   between its spokes; not the body of a white product a shade off its white backdrop.
 * - `distinctShare`: the object's colour model learns from the sure foreground less what shows the backdrop,
 *   unless that leaves less than this share of it (an object of the backdrop's own colours): then from all of it.
 * - `band`: the matting band around the cut's outline; `softReach`: how far from the cut's foreground the
 *   network's own soft zone (hair, fur) stays unknown for the matting.
 * - `reach`: strands the network missed (hair, fur, threads over the backdrop) are looked for within `reach` of
 *   the object, where a pixel's colour is not typical of the background; strand-unmix.ts gives them alpha. 40, not
 *   20: the composite set's base group 0.968 -> 0.972. Following strands further along such pixels (to 120) found
 *   specks of a busy backdrop's colours on the bench's bottle scene; past `reach` they are followed only along
 *   pixels that unmix as strands, and only on a plain backdrop (STRANDS.plainTexture).
 */
export const CUTOUT = {
  sure: 0.97,
  unsure: 0.03,
  erode: 1,
  components: 5,
  samples: 20_000,
  priorWeight: 1,
  smoothness: 20,
  holeMargin: 3,
  holeArea: 4,
  holeShare: 0.9,
  distinctShare: 0.02,
  backdropShift: 1.5,
  holeClose: 2,
  textureRatio: 1.4,
  typical: 0.95,
  around: 8,
  band: 1,
  softReach: 3,
  reach: 40,
} as const;

/**
 * How far from the network's object (in coarse pixels) the refinement looks: strands within `reach`, the
 * backdrop's ring and its local colour within `around` and five of them beyond. matte.kernel.ts works on the
 * object's box widened by this much.
 */
export const REFINE_REACH = CUTOUT.reach + CUTOUT.around;

/**
 * Where a crop that refineCutout works on lies in the whole image (matte.kernel.ts's work box). Outside the box
 * all is sure background, and the backdrop's statistics (its colour model, what is typical of it, its texture) are
 * the whole image's, so the answer does not depend on the box.
 */
export interface CropOf {
  image: RawPixels;
  box: { left: number; top: number; width: number; height: number };
}

const FG = 1;
const BG = 2;

/**
 * The prior alpha (0..255, the guided filter's) re-decided with colour models and a graph cut, holes included,
 * then matted in a band around the cut's outline. `image`: 3 channels at the working size. Returns a new alpha.
 */
export function refineCutout(image: RawPixels, prior: Uint8Array, coarsePixel: number, crop?: CropOf): Uint8Array {
  const { width, height } = image;
  const n = width * height;
  const border = Math.max(1, Math.round(CUTOUT.erode * coarsePixel));
  const fixed = sureRegions(prior, width, height, border);
  const fgSure = new Uint8Array(n);
  const bgSure = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    fgSure[i] = fixed[i] === FG ? 1 : 0;
    bgSure[i] = fixed[i] === BG ? 1 : 0;
  }
  const backdrop = wholeBackdrop(image, bgSure, crop);
  const background = fitColourModel(backdrop.image, backdrop.bgSure, CUTOUT.components, CUTOUT.samples);
  if (!background) return prior;
  const bgCost = new Float32Array(n);
  // what counts as the background inside the object is the background just around it (a ring's gravel), not a
  // colour met anywhere in a busy backdrop (a red stripe of a label against a red box across the photo)
  const notBg = invert(bgSure);
  const around = backgroundAround(notBg, bgSure, width, height, Math.max(1, Math.round(CUTOUT.around * coarsePixel)));
  const local = fitColourModel(image, around, CUTOUT.components, CUTOUT.samples) ?? background;
  colourCosts(local, image, notBg, bgCost);
  const typical = belowLimit(bgCost, notBg, typicalLimit(local, image, around, crop));
  const foreground = foregroundModel(image, fgSure, backdropInObject(typical, fgSure, width, height, coarsePixel));
  if (!foreground) return prior;
  const fgCost = new Float32Array(n);
  colourCosts(foreground, image, notBg, fgCost);
  const strandLimit = typicalLimit(background, backdrop.image, backdrop.bgSure);
  const strands = nearAndUnlikeBackground(image, fixed, prior, background, strandLimit, coarsePixel);
  const backdropTexture = meanTexture(backdrop.image, backdrop.bgSure);
  const holes = enclosedBackground(
    image,
    {
      tuning: CUTOUT,
      within: notBg,
      fgSure,
      bgSure,
      typical,
      fgCost,
      bgCost,
      backdropTexture,
    },
    coarsePixel,
  );
  const free = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (holes[i]) fixed[i] = 0;
    free[i] = fixed[i] === 0 ? 1 : 0;
  }
  // the cut's model of the object: its sure part less the holes found, so a region that looked like the backdrop
  // but is not a hole (a cream label before a pale wall) is the object's colour again
  colourCosts(objectModel(image, fgSure, holes) ?? foreground, image, free, fgCost);
  colourCosts(background, image, free, bgCost);
  for (let i = 0; i < n; i++) {
    if (!free[i]) continue;
    // the network's say: none where the colours re-decide a hole
    const p = holes[i] ? 0.5 : Math.min(0.99, Math.max(0.01, prior[i] / 255));
    fgCost[i] -= CUTOUT.priorWeight * Math.log(p);
    bgCost[i] -= CUTOUT.priorWeight * Math.log(1 - p);
  }
  const cut = cutGrid({ width, height, image, fgCost, bgCost, fixed, smoothness: CUTOUT.smoothness });
  const band = Math.max(1, Math.round(CUTOUT.band * coarsePixel));
  const alpha = solveAlpha(image, bandTrimap(cut, prior, strands, width, height, coarsePixel), band);
  // strands are unmixed towards all the sure object's colours: a stool's leg shares some with the brick behind it
  const objectColours = fitColourModel(image, fgSure, CUTOUT.components, CUTOUT.samples) ?? foreground;
  unmixStrands(
    image,
    alpha,
    { where: strands, bgSure, follow: medianTexture(backdrop.image, backdrop.bgSure) <= STRANDS.plainTexture },
    objectColours,
    coarsePixel,
  );
  return alpha;
}

/** The image the backdrop is learned from and its sure background: the whole one's (all outside the box) for a crop. */
function wholeBackdrop(image: RawPixels, bgSure: Uint8Array, crop?: CropOf) {
  if (!crop) return { image, bgSure };
  const { box, image: whole } = crop;
  const part = { data: bgSure, width: box.width, height: box.height, channels: 1 };
  return { image: whole, bgSure: placePlane(part, box.left, box.top, whole.width, whole.height, 1) };
}

/** The sure background within `reach` pixels of the object (`object`: all but the sure background). */
function backgroundAround(object: Uint8Array, bgSure: Uint8Array, width: number, height: number, reach: number) {
  const near = dilate(object, width, height, reach);
  const out = new Uint8Array(near.length);
  for (let i = 0; i < out.length; i++) out[i] = near[i] && bgSure[i] ? 1 : 0;
  return out;
}

/** FG and BG where the prior is sure, each less `border` pixels at its edge; 0 elsewhere (unknown). */
function sureRegions(prior: Uint8Array, width: number, height: number, border: number): Uint8Array {
  const sureFg = Math.round(CUTOUT.sure * 255);
  const sureBg = Math.round(CUTOUT.unsure * 255);
  const notFg = new Uint8Array(prior.length);
  const notBg = new Uint8Array(prior.length);
  for (let i = 0; i < prior.length; i++) {
    notFg[i] = prior[i] >= sureFg ? 0 : 1;
    notBg[i] = prior[i] <= sureBg ? 0 : 1;
  }
  const nearNotFg = dilate(notFg, width, height, border);
  const nearNotBg = dilate(notBg, width, height, border);
  const fixed = new Uint8Array(prior.length);
  for (let i = 0; i < prior.length; i++) fixed[i] = nearNotFg[i] === 0 ? FG : nearNotBg[i] === 0 ? BG : 0;
  return fixed;
}

/**
 * The sure-foreground pixels that show the backdrop, or lie beside it: the typical ones among them closed over
 * their own speckles (by `holeClose`), then widened by a coarse pixel (the blends of the backdrop's colour into a
 * spoke). Only the sure foreground is closed, so a thin part between it and the unsure band outside (a tyre) is
 * not closed over.
 */
function backdropInObject(typical: Uint8Array, fgSure: Uint8Array, width: number, height: number, coarsePixel: number) {
  const inside = new Uint8Array(typical.length);
  for (let i = 0; i < inside.length; i++) inside[i] = typical[i] && fgSure[i] ? 1 : 0;
  const close = Math.max(1, Math.round(CUTOUT.holeClose * coarsePixel));
  const closed = erode(dilate(inside, width, height, close), width, height, close);
  return dilate(closed, width, height, Math.max(1, Math.round(coarsePixel)));
}

/**
 * The foreground's colour model, learned from the sure foreground less the pixels whose colour is typical of the
 * background (a ring's filled-in inside would otherwise teach it the background's colours), unless that leaves
 * too little of it (an object of the background's own colours): then from all of it.
 */
function foregroundModel(image: RawPixels, fgSure: Uint8Array, typical: Uint8Array): ColourModel | undefined {
  const distinct = new Uint8Array(fgSure.length);
  let kept = 0;
  let all = 0;
  for (let i = 0; i < fgSure.length; i++) {
    if (!fgSure[i]) continue;
    all++;
    if (!typical[i]) {
      distinct[i] = 1;
      kept++;
    }
  }
  const select = kept >= all * CUTOUT.distinctShare ? distinct : fgSure;
  return fitColourModel(image, select, CUTOUT.components, CUTOUT.samples);
}

/** The colour model of the sure foreground less `holes`, or undefined when there is none to take out. */
function objectModel(image: RawPixels, fgSure: Uint8Array, holes: Uint8Array): ColourModel | undefined {
  let any = false;
  const select = new Uint8Array(fgSure.length);
  for (let i = 0; i < select.length; i++) {
    select[i] = fgSure[i] && !holes[i] ? 1 : 0;
    if (holes[i]) any = true;
  }
  return any ? fitColourModel(image, select, CUTOUT.components, CUTOUT.samples) : undefined;
}

/**
 * The cost a colour typical of the background stays within: the `CUTOUT.typical` quantile of the background
 * model's cost over the pixels `select` picks (a sample of about 50,000). A colour within it is as usual there
 * as the background's own (the gravel inside a ring), not merely nearer the background's colours than a
 * foreground model that lacks it (the white band of a white product). The sample is every so many pixels of the
 * whole image (`crop`: where `image` lies in it), so a crop of it gives the same sample, and the same quantile.
 */
function typicalLimit(model: ColourModel, image: RawPixels, select: Uint8Array, crop?: CropOf): number {
  const { data, channels, width, height } = image;
  const whole = crop?.image ?? image;
  const { left, top } = crop?.box ?? { left: 0, top: 0 };
  const stride = Math.max(1, Math.floor((whole.width * whole.height) / 50_000));
  const sample: number[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0, i = y * width, at = (top + y) * whole.width + left; x < width; x++, i++, at++) {
      if (!select[i] || at % stride !== 0) continue;
      sample.push(colourCost(model, data[i * channels], data[i * channels + 1], data[i * channels + 2]));
    }
  }
  if (sample.length === 0) return -Infinity;
  sample.sort((a, b) => a - b);
  return sample[Math.min(sample.length - 1, Math.floor(CUTOUT.typical * sample.length))];
}

/** 1 where `where` is set and `cost` is at most `limit`. */
function belowLimit(cost: Float32Array, where: Uint8Array, limit: number): Uint8Array {
  const out = new Uint8Array(cost.length);
  for (let i = 0; i < out.length; i++) if (where[i] && cost[i] <= limit) out[i] = 1;
  return out;
}

/**
 * The trimap of the matting: sure where the cut is, unknown within `band` of the cut's outline and in the
 * network's soft zone near the cut's foreground where the colour is not the background's (its prior as the guess
 * there), so strands of hair keep their partial alpha while the blur of the network's edge over a plain wall, and
 * enclosed background the cut removed, stay removed.
 */
function bandTrimap(
  cut: Uint8Array,
  prior: Uint8Array,
  unlikeBackground: Uint8Array,
  width: number,
  height: number,
  coarsePixel: number,
) {
  const n = width * height;
  const band = Math.max(1, Math.round(CUTOUT.band * coarsePixel));
  const bg = new Uint8Array(n);
  for (let i = 0; i < n; i++) bg[i] = cut[i] ? 0 : 1;
  const nearFg = dilate(cut, width, height, band);
  const nearBg = dilate(bg, width, height, band);
  const reach = dilate(cut, width, height, Math.max(band, Math.round(CUTOUT.softReach * coarsePixel)));
  const sureFg = Math.round(CUTOUT.sure * 255);
  const sureBg = Math.round(CUTOUT.unsure * 255);
  const trimap = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const edge = nearFg[i] && nearBg[i];
    const soft = reach[i] && unlikeBackground[i] && prior[i] > sureBg && prior[i] < sureFg;
    if (!edge && !soft) {
      trimap[i] = cut[i] ? 255 : 0;
      continue;
    }
    // the prior as the guess where it agrees with the cut, a weak guess of the cut's side where not
    const agrees = prior[i] >= 128 === (cut[i] === 1);
    trimap[i] = Math.min(254, Math.max(1, agrees ? prior[i] : cut[i] ? 232 : 24));
  }
  return trimap;
}

/**
 * The pixels near the object (within `reach` coarse pixels of the network's object, not sure foreground) whose
 * colour is not typical of the background: where strands of hair, fur or threads the network missed may lie
 * over the backdrop (a cost under the background model above `limit`). 1 where so; unmixStrands decides their alpha.
 */
function nearAndUnlikeBackground(
  image: RawPixels,
  fixed: Uint8Array,
  prior: Uint8Array,
  background: ColourModel,
  limit: number,
  coarsePixel: number,
): Uint8Array {
  const { width, height } = image;
  const n = width * height;
  const object = new Uint8Array(n);
  for (let i = 0; i < n; i++) object[i] = prior[i] >= 128 ? 1 : 0;
  const near = dilate(object, width, height, Math.max(1, Math.round(CUTOUT.reach * coarsePixel)));
  const where = new Uint8Array(n);
  for (let i = 0; i < n; i++) where[i] = fixed[i] !== FG && near[i] ? 1 : 0;
  const bgCost = new Float32Array(n);
  colourCosts(background, image, where, bgCost);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (where[i] && bgCost[i] > limit) out[i] = 1;
  return out;
}
