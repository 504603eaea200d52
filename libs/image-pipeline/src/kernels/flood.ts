/**
 * Grows a region over 8-connected pixels of a `width` x `height` grid, depth first: starts from the first `top`
 * entries of `stack` (already claimed by the caller) and claims every neighbour for which `claim(next)` answers
 * true (it marks the pixel itself, so that no pixel is claimed twice). `stack` holds at least width x height.
 */
export function flood8(
  stack: Int32Array,
  top: number,
  width: number,
  height: number,
  claim: (next: number) => boolean,
): void {
  while (top > 0) {
    const at = stack[--top];
    const x = at % width;
    const y = (at - x) / width;
    for (let dy = -1; dy <= 1; dy++) {
      const ny = y + dy;
      if (ny < 0 || ny >= height) continue;
      for (let dx = -1; dx <= 1; dx++) {
        const nx = x + dx;
        if (nx < 0 || nx >= width) continue;
        const next = ny * width + nx;
        if (claim(next)) stack[top++] = next;
      }
    }
  }
}
