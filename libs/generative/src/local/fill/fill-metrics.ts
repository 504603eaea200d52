import type { PortBox } from '@app/image-pipeline';

/**
 * How visible the seam of an outpainted canvas is along `inner`'s edges (those with new area beyond them):
 * the mean absolute step across the seam line (between the last row or column of the original and the first new
 * one, summed over the 3 channels) divided by the mean step across the parallel lines 2 to 4 px inside and outside
 * it. About 1: the seam changes no more than the image around it does (invisible); above 1: an edge is drawn
 * where the original ends; below 1 (a mirror, whose first new pixel repeats the last old one): a flat line.
 * Edges are weighted by their length. 1 when there is no new area.
 */
export function seamVisibility(data: Uint8Array, width: number, height: number, inner: PortBox): number {
  let seam = 0;
  let around = 0;
  let lines = 0;
  for (const edge of seamEdges(width, height, inner)) {
    seam += edge.step(0) * edge.length;
    let reference = 0;
    for (const offset of [-4, -3, -2, 2, 3, 4]) reference += edge.step(offset);
    around += (reference / 6) * edge.length;
    lines += edge.length;
  }
  if (lines === 0 || around === 0) return 1;
  return seam / around;

  function stepAcross(x0: number, y0: number, x1: number, y1: number): number {
    const a = (y0 * width + x0) * 3;
    const b = (y1 * width + x1) * 3;
    return Math.abs(data[a] - data[b]) + Math.abs(data[a + 1] - data[b + 1]) + Math.abs(data[a + 2] - data[b + 2]);
  }

  function seamEdges(w: number, h: number, box: PortBox): Array<{ length: number; step: (offset: number) => number }> {
    const right = box.left + box.width;
    const bottom = box.top + box.height;
    const edges: Array<{ length: number; step: (offset: number) => number }> = [];
    // offset > 0: lines inside the original; < 0: outside; 0: the seam itself.
    const mean = (count: number, f: (i: number) => number) => {
      let sum = 0;
      for (let i = 0; i < count; i++) sum += f(i);
      return sum / count;
    };
    if (box.left >= 5)
      edges.push({
        length: box.height,
        step: (o) => mean(box.height, (i) => stepAcross(box.left + o - 1, box.top + i, box.left + o, box.top + i)),
      });
    if (w - right >= 5)
      edges.push({
        length: box.height,
        step: (o) => mean(box.height, (i) => stepAcross(right - o - 1, box.top + i, right - o, box.top + i)),
      });
    if (box.top >= 5)
      edges.push({
        length: box.width,
        step: (o) => mean(box.width, (i) => stepAcross(box.left + i, box.top + o - 1, box.left + i, box.top + o)),
      });
    if (h - bottom >= 5)
      edges.push({
        length: box.width,
        step: (o) => mean(box.width, (i) => stepAcross(box.left + i, bottom - o - 1, box.left + i, bottom - o)),
      });
    return edges;
  }
}

/**
 * Texture energy of the new area against the original's border: the mean absolute gradient (|dx| + |dy| over the
 * 3 channels) over the canvas outside `inner`, divided by the same over the band of the original within `band` px
 * of its edges. About 1: the new area is as detailed as the border it continues; a blurred fill scores far below.
 */
export function textureEnergyRatio(data: Uint8Array, width: number, height: number, inner: PortBox, band = 32): number {
  let outside = 0;
  let outsideCount = 0;
  let border = 0;
  let borderCount = 0;
  const right = inner.left + inner.width;
  const bottom = inner.top + inner.height;
  for (let y = 0; y < height - 1; y++) {
    for (let x = 0; x < width - 1; x++) {
      const a = (y * width + x) * 3;
      let g = 0;
      for (let c = 0; c < 3; c++)
        g += Math.abs(data[a + c] - data[a + 3 + c]) + Math.abs(data[a + c] - data[a + width * 3 + c]);
      const inside = x >= inner.left && x < right - 1 && y >= inner.top && y < bottom - 1;
      if (!inside && (x < inner.left - 1 || x >= right || y < inner.top - 1 || y >= bottom)) {
        outside += g;
        outsideCount++;
      } else if (inside && Math.min(x - inner.left, right - 2 - x, y - inner.top, bottom - 2 - y) < band) {
        border += g;
        borderCount++;
      }
    }
  }
  if (outsideCount === 0 || border === 0) return 1;
  return outside / outsideCount / (border / borderCount);
}
