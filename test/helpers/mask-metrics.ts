/**
 * Intersection over union of two 8-bit alphas of the same size, each read as object where above 127: how a
 * segmentation is judged against a known alpha (1: the same pixels, 0: none in common).
 */
export function maskIoU(mask: ArrayLike<number>, truth: ArrayLike<number>): number {
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
