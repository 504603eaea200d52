/**
 * Float planes (one value per pixel, rows top to bottom) and the two filters the matte is refined with: the box
 * mean and the guided filter. Pure functions, run inside the pixel kernels (worker threads).
 */
export interface Plane {
  data: Float32Array;
  width: number;
  height: number;
}

/**
 * The mean over the (2r+1) x (2r+1) window around each pixel, the window clipped at the borders (so a border
 * pixel averages only pixels that exist). O(1) per pixel whatever `r`: running sums across, then down.
 */
export function boxMean(plane: Plane, r: number): Plane {
  const { width, height, data } = plane;
  const across = new Float32Array(width * height);
  for (let y = 0; y < height; y++) meanRow(data, across, y * width, width, r);
  const out = new Float32Array(width * height);
  // Down: a running sum of whole rows, so that memory is read row by row (cache-friendly).
  const sum = new Float64Array(width);
  for (let y = 0; y < Math.min(r, height - 1) + 1; y++) addRow(sum, across, y * width, 1);
  for (let y = 0; y < height; y++) {
    const top = Math.max(0, y - r);
    const bottom = Math.min(height - 1, y + r);
    const scale = 1 / (bottom - top + 1);
    const at = y * width;
    for (let x = 0; x < width; x++) out[at + x] = sum[x] * scale;
    if (y + r + 1 < height) addRow(sum, across, (y + r + 1) * width, 1);
    if (y - r >= 0) addRow(sum, across, (y - r) * width, -1);
  }
  return { data: out, width, height };
}

function meanRow(src: Float32Array, dst: Float32Array, at: number, width: number, r: number): void {
  let sum = 0;
  for (let x = 0; x < Math.min(r, width - 1) + 1; x++) sum += src[at + x];
  for (let x = 0; x < width; x++) {
    const left = Math.max(0, x - r);
    const right = Math.min(width - 1, x + r);
    dst[at + x] = sum / (right - left + 1);
    if (x + r + 1 < width) sum += src[at + x + r + 1];
    if (x - r >= 0) sum -= src[at + x - r];
  }
}

function addRow(sum: Float64Array, src: Float32Array, at: number, sign: 1 | -1): void {
  for (let x = 0; x < sum.length; x++) sum[x] += sign * src[at + x];
}

function map2(a: Plane, b: Plane, f: (x: number, y: number) => number): Plane {
  const out = new Float32Array(a.data.length);
  for (let i = 0; i < out.length; i++) out[i] = f(a.data[i], b.data[i]);
  return { data: out, width: a.width, height: a.height };
}

/**
 * The guided filter (He, Sun and Tang, "Guided Image Filtering", 2010/2013), with a colour guide: within each
 * window the output is a linear function of the guide's three channels, q = a . I + b, fitted to the input p by
 * least squares with the ridge `eps`. Where the guide has an edge (variance >> eps) the output follows it, so a
 * blurry mask upsampled from the model's 320 px becomes as sharp as the image's own edge; where the guide is
 * flat the output is the local mean of p. A colour guide (not luminance alone) also separates an object from a
 * background of about the same brightness but another hue (an orange product on a green backdrop).
 * `guide`: three planes 0..1; `input` 0..1; `r` in pixels; `eps` in (guide units)^2.
 *
 * `subsample` > 1 is the fast guided filter (He and Sun, 2015): the coefficients a and b vary only as fast as
 * the window does, so they are fitted on the planes block-averaged by `subsample` (with r / subsample) and
 * interpolated back; only q = a . I + b is evaluated at full size, so edges stay as sharp as the guide's.
 */
export function guidedFilter(
  guide: readonly [Plane, Plane, Plane],
  input: Plane,
  r: number,
  eps: number,
  subsample = 1,
): Plane {
  const { width, height } = input;
  const small = subsample > 1;
  const fitGuide = small ? (guide.map((plane) => shrink(plane, subsample)) as [Plane, Plane, Plane]) : guide;
  const fitR = Math.max(1, Math.round(r / subsample));
  const fitted = coefficients(
    fitGuide,
    guideStatistics(fitGuide, fitR, eps),
    small ? shrink(input, subsample) : input,
    fitR,
  );
  return evaluate(guide, small ? fitted.map((plane) => enlarge(plane, width, height)) : fitted);
}

/**
 * What the guided filter needs of its guide alone, whatever the input: the window means of the three channels
 * and the inverse of their regularised covariance in each window (six distinct entries, in planes).
 */
interface GuideStatistics {
  mean: Float32Array[];
  inverse: Float32Array[];
}

function guideStatistics(guide: readonly [Plane, Plane, Plane], r: number, eps: number): GuideStatistics {
  const n = guide[0].data.length;
  const mean = guide.map((channel) => boxMean(channel, r).data);
  // the six distinct entries of the guide's window covariance: its inverse is written over them
  const pairs = [
    [0, 0],
    [0, 1],
    [0, 2],
    [1, 1],
    [1, 2],
    [2, 2],
  ] as const;
  const entries = pairs.map(
    ([j, k]) =>
      boxMean(
        map2(guide[j], guide[k], (u, v) => u * v),
        r,
      ).data,
  );
  const [c00, c01, c02, c11, c12, c22] = entries;
  const inverse = new Float64Array(6);
  for (let i = 0; i < n; i++) {
    const m0 = mean[0][i];
    const m1 = mean[1][i];
    const m2 = mean[2][i];
    // positive definite: eps > 0
    invertSymmetric3(
      c00[i] - m0 * m0 + eps,
      c01[i] - m0 * m1,
      c02[i] - m0 * m2,
      c11[i] - m1 * m1 + eps,
      c12[i] - m1 * m2,
      c22[i] - m2 * m2 + eps,
      inverse,
    );
    for (let k = 0; k < 6; k++) entries[k][i] = inverse[k];
  }
  return { mean, inverse: entries };
}

/** The window-averaged coefficients of the guided filter for `input`: a (three planes) and b. */
function coefficients(
  guide: readonly [Plane, Plane, Plane],
  { mean, inverse }: GuideStatistics,
  input: Plane,
  r: number,
): Plane[] {
  const { width, height } = input;
  const n = width * height;
  const meanP = boxMean(input, r).data;
  const corrP = guide.map(
    (channel) =>
      boxMean(
        map2(channel, input, (u, p) => u * p),
        r,
      ).data,
  );
  const [i00, i01, i02, i11, i12, i22] = inverse;
  const a = [new Float32Array(n), new Float32Array(n), new Float32Array(n)];
  const b = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const c0 = corrP[0][i] - mean[0][i] * meanP[i];
    const c1 = corrP[1][i] - mean[1][i] * meanP[i];
    const c2 = corrP[2][i] - mean[2][i] * meanP[i];
    const a0 = i00[i] * c0 + i01[i] * c1 + i02[i] * c2;
    const a1 = i01[i] * c0 + i11[i] * c1 + i12[i] * c2;
    const a2 = i02[i] * c0 + i12[i] * c1 + i22[i] * c2;
    a[0][i] = a0;
    a[1][i] = a1;
    a[2][i] = a2;
    b[i] = meanP[i] - a0 * mean[0][i] - a1 * mean[1][i] - a2 * mean[2][i];
  }
  return [...a.map((data) => boxMean({ data, width, height }, r)), boxMean({ data: b, width, height }, r)];
}

/** q = a . I + b at the guide's size (the coefficients at that size; b's plane becomes q). */
function evaluate(guide: readonly [Plane, Plane, Plane], [a0, a1, a2, b]: Plane[]): Plane {
  const q = b.data;
  for (let i = 0; i < q.length; i++) {
    q[i] += a0.data[i] * guide[0].data[i] + a1.data[i] * guide[1].data[i] + a2.data[i] * guide[2].data[i];
  }
  return { data: q, width: b.width, height: b.height };
}

/**
 * The inverse of the symmetric 3 x 3 matrix [[s00 s01 s02] [s01 s11 s12] [s02 s12 s22]] by its adjugate, into
 * `out` as its six distinct entries (i00 i01 i02 i11 i12 i22); returns the determinant (the inverse is only
 * meaningful when it is positive).
 */
export function invertSymmetric3(
  s00: number,
  s01: number,
  s02: number,
  s11: number,
  s12: number,
  s22: number,
  out: Float64Array | number[],
): number {
  const i00 = s11 * s22 - s12 * s12;
  const i01 = s02 * s12 - s01 * s22;
  const i02 = s01 * s12 - s02 * s11;
  const det = s00 * i00 + s01 * i01 + s02 * i02;
  out[0] = i00 / det;
  out[1] = i01 / det;
  out[2] = i02 / det;
  out[3] = (s00 * s22 - s02 * s02) / det;
  out[4] = (s01 * s02 - s00 * s12) / det;
  out[5] = (s00 * s11 - s01 * s01) / det;
  return det;
}

/**
 * The guided filter of one guide applied to many inputs (the matting's iterations, alpha-matting.ts): the
 * guide's window means and the inverse of its regularised covariance are computed once; each input then costs
 * four box means for its fit and four for its coefficients. Full resolution only (no subsampling).
 */
export function guidedFilterOf(guide: readonly [Plane, Plane, Plane], r: number, eps: number): (input: Plane) => Plane {
  const statistics = guideStatistics(guide, r, eps);
  return (input) => evaluate(guide, coefficients(guide, statistics, input, r));
}

/** The plane averaged over blocks of `factor` x `factor` pixels (the last blocks partial). */
export function shrink(plane: Plane, factor: number): Plane {
  const { width, height, data } = plane;
  const w = Math.ceil(width / factor);
  const h = Math.ceil(height / factor);
  const sum = new Float32Array(w * h);
  const count = new Float32Array(w * h);
  for (let y = 0; y < height; y++) {
    const row = ((y / factor) | 0) * w;
    for (let x = 0; x < width; x++) {
      const cell = row + ((x / factor) | 0);
      sum[cell] += data[y * width + x];
      count[cell] += 1;
    }
  }
  for (let i = 0; i < sum.length; i++) sum[i] /= count[i];
  return { data: sum, width: w, height: h };
}

/** The plane interpolated bilinearly to `width` x `height` (block centres aligned). */
export function enlarge(plane: Plane, width: number, height: number): Plane {
  const out = new Float32Array(width * height);
  const fx = plane.width / width;
  const fy = plane.height / height;
  for (let y = 0; y < height; y++) {
    const sy = Math.min(plane.height - 1, Math.max(0, (y + 0.5) * fy - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(plane.height - 1, y0 + 1);
    const ty = sy - y0;
    for (let x = 0; x < width; x++) {
      const sx = Math.min(plane.width - 1, Math.max(0, (x + 0.5) * fx - 0.5));
      const x0 = Math.floor(sx);
      const x1 = Math.min(plane.width - 1, x0 + 1);
      const tx = sx - x0;
      const top = plane.data[y0 * plane.width + x0] * (1 - tx) + plane.data[y0 * plane.width + x1] * tx;
      const bottom = plane.data[y1 * plane.width + x0] * (1 - tx) + plane.data[y1 * plane.width + x1] * tx;
      out[y * width + x] = top * (1 - ty) + bottom * ty;
    }
  }
  return { data: out, width, height };
}
