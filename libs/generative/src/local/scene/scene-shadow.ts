import { gaussianMean } from '@app/image-pipeline/kernels/background-blur.kernel';
import type { Plane } from '@app/image-pipeline/kernels/guided-filter';
import type { ObjectShape } from './object-shape';
import type { SceneLight } from './scene-light';

/**
 * The shadow of the object, on the work grid: opacity 0..1 (0 = no shadow), the product of a contact shadow
 * (dark, tight, under the base) and a cast shadow shaped by the view.
 */

/** Below this opacity the shadow is exactly 0, so that a locked template keeps its bytes away from the object. */
const NONE = 1 / 512;

/**
 * `floorTop`: the highest grid row of the floor (a studio backdrop's floor line); a front shadow is squashed more
 * so as to end there instead of climbing the wall. Absent: the floor is everything behind the object.
 */
export function shadowPlane(
  alpha: Plane,
  shape: ObjectShape,
  view: 'top' | 'front',
  light: SceneLight,
  floorTop?: number,
): Plane {
  const out = new Float32Array(alpha.data.length);
  const plane: Plane = { data: out, width: alpha.width, height: alpha.height };
  if (!shape.present) return plane;
  const contact = contactShadow(alpha, shape);
  const cast = view === 'top' ? topShadow(alpha, shape, light) : frontShadow(alpha, shape, light, floorTop);
  for (let i = 0; i < out.length; i++) {
    const value = 1 - (1 - contact.data[i]) * (1 - cast.data[i]);
    out[i] = value < NONE ? 0 : Math.min(1, value);
  }
  return plane;
}

/**
 * The base band (the lowest 6 % of the object's height in each column) nudged down: slightly blurred (dark, the
 * contact itself) and widely blurred (a faint pool around the foot, wider than high as the band is).
 */
function contactShadow(alpha: Plane, shape: ObjectShape): Plane {
  const { width, height } = alpha;
  const band = new Float32Array(width * height);
  const depth = Math.max(1, Math.round((shape.base - shape.top + 1) * 0.06));
  const drop = Math.max(1, Math.round(shape.size * 0.008));
  for (let x = shape.left; x <= shape.right; x++) {
    const lowest = shape.bottom[x];
    if (lowest < 0) continue;
    for (let y = Math.max(0, lowest - depth); y <= lowest; y++) {
      const to = Math.min(height - 1, y + drop);
      band[to * width + x] = Math.max(band[to * width + x], alpha.data[y * width + x]);
    }
  }
  const tight = gaussianMean({ data: band, width, height }, Math.max(0.8, shape.size * 0.012));
  const pool = gaussianMean({ data: band, width, height }, Math.max(1.5, shape.size * 0.045));
  for (let i = 0; i < tight.data.length; i++) {
    const dark = Math.min(1, tight.data[i] * 1.5) * 0.7;
    tight.data[i] = 1 - (1 - dark) * (1 - Math.min(1, pool.data[i] * 2.5) * 0.28);
  }
  return tight;
}

/** Seen from above: the whole silhouette, offset down and away from the light, softly blurred, plus a tight rim. */
function topShadow(alpha: Plane, shape: ObjectShape, light: SceneLight): Plane {
  const { width, height } = alpha;
  const dx = Math.round(light.lean * shape.thickness * 0.08);
  const dy = Math.round(shape.thickness * 0.07);
  const shifted = new Float32Array(width * height);
  for (let y = Math.max(0, shape.top); y <= shape.base; y++) {
    const to = y + dy;
    if (to >= height) break;
    for (let x = shape.left; x <= shape.right; x++) {
      const tx = x + dx;
      if (tx >= 0 && tx < width) shifted[to * width + tx] = alpha.data[y * width + x];
    }
  }
  const soft = gaussianMean({ data: shifted, width, height }, Math.max(1, shape.thickness * 0.07 * light.softness));
  const rim = gaussianMean(alpha, Math.max(0.8, shape.size * 0.012));
  const opacity = Math.min(0.8, 0.42 * light.opacity);
  for (let i = 0; i < soft.data.length; i++) {
    soft.data[i] = 1 - (1 - soft.data[i] * opacity) * (1 - rim.data[i] * 0.3);
  }
  return soft;
}

/**
 * Seen horizontally: the silhouette laid on the floor behind the object. A point `h` above the base lands
 * `h * SQUASH` above it (the floor recedes) and `h * lean` to the side; the shadow softens and fades with that
 * distance (a mix of a tight and a wide blur), as a real one does away from the contact.
 */
const SQUASH = 0.32;

function frontShadow(alpha: Plane, shape: ObjectShape, light: SceneLight, floorTop?: number): Plane {
  const { width, height } = alpha;
  const projected = new Float32Array(width * height);
  const base = shape.base;
  const objectHeight = base - shape.top + 1;
  const squash = floorTop === undefined ? SQUASH : Math.min(SQUASH, Math.max(0.08, (base - floorTop) / objectHeight));
  const lean = light.lean * 0.7;
  const reach = Math.ceil(objectHeight * squash);
  for (let yd = Math.max(0, base - reach); yd <= base; yd++) {
    const h = (base - yd) / squash;
    const ys = Math.round(base - h);
    if (ys < 0) continue;
    const shift = h * lean;
    for (let xd = 0; xd < width; xd++) {
      const xs = Math.round(xd - shift);
      if (xs >= shape.left && xs <= shape.right) projected[yd * width + xd] = alpha.data[ys * width + xs];
    }
  }
  const sigma = Math.max(1, shape.size * 0.02 * light.softness);
  const near = gaussianMean({ data: projected, width, height }, sigma);
  const far = gaussianMean({ data: projected, width, height }, sigma * 3.5);
  const opacity = Math.min(0.85, 0.5 * light.opacity);
  for (let y = 0; y < height; y++) {
    const t = Math.min(1, Math.max(0, (base - y) / Math.max(1, reach)));
    const fade = opacity * (1 - 0.65 * t);
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      near.data[i] = (near.data[i] * (1 - t) + far.data[i] * t) * fade;
    }
  }
  return near;
}
