// The segmentation measure of the vision suite, the same as the tests' (test/helpers/mask-metrics.ts), written
// again here because the bench is plain JavaScript that runs without a build.

/**
 * Intersection over union of two 8-bit alphas of the same size, each read as object where above 127 (1: the same
 * pixels, 0: none in common).
 */
export function maskIoU(mask, truth) {
  let both = 0;
  let either = 0;
  for (let i = 0; i < truth.length; i++) {
    const a = mask[i] > 127;
    const t = truth[i] > 127;
    if (a && t) both++;
    if (a || t) either++;
  }
  return both / either;
}

/** The alpha of decoded RGBA pixels. */
export function alphaOf(rgba) {
  const alpha = new Uint8Array(rgba.length / 4);
  for (let i = 0; i < alpha.length; i++) alpha[i] = rgba[i * 4 + 3];
  return alpha;
}
