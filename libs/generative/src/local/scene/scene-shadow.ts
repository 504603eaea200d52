import { gaussianMean, type Plane } from '@app/image-pipeline/planes';
import { standsOnBase, type Footprint, type ObjectShape } from './object-shape';
import type { SceneLight } from './scene-light';

/**
 * The shadow of the object, on the work grid: opacity 0..1 (0 = no shadow), the union of a contact shadow and a
 * cast shadow. Both start at the object's footprint (where it touches the floor: a plant's pot, not its leaves),
 * so nothing darkens the backdrop beside the parts that stand above it.
 *
 * - Contact: dark and tight along the footprint's lowest rows, and a soft elliptical pool around it, flatter in
 *   the front view (the floor seen at a grazing angle) than in the top view.
 * - Cast, `front`: the silhouette laid on the floor behind the object, away from the light; a point `h` above
 *   the base lands `h * FRONT.squash` above it (the floor recedes) and `h * lean` to the side. It stays low on
 *   the floor, so it never climbs the object's sides.
 * - Cast, `top`, an object standing on its base: the same projection thrown towards the viewer (the light
 *   behind), less squashed, as the floor is seen from higher up; behind it, as in `front`, when the base is at
 *   the canvas's lower edge and there is no floor in front to throw it on.
 * - Cast, `top`, an object lying flat (no flat base: a watch, a plate): it touches the floor everywhere, so the
 *   shadow is its whole outline, offset a little away from the light and softened.
 * Every projected shadow softens and fades with its distance from the footprint, as a real one does.
 */

/** Below this opacity the shadow is exactly 0, so that a locked template keeps its bytes away from the object. */
const NONE = 1 / 512;

/** The projection of each view: squash (rise per unit of height), sideways lean per unit of the light's lean. */
const FRONT = { squash: 0.16, lean: 0.8, direction: -1 } as const;
const TOP_STANDING = { squash: 0.3, lean: 0.55, direction: 1 } as const;

/** The contact pool: its height over its width (the floor's foreshortening) per view. */
const POOL_ASPECT = { front: 0.22, top: 0.5 } as const;

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
  const foot = shape.footprint;
  const lying = view === 'top' && !standsOnBase(shape);
  const contact = lying ? lyingContact(alpha, shape, light) : contactShadow(alpha, shape, foot, POOL_ASPECT[view]);
  let cast: Plane;
  const objectHeight = shape.base - shape.top + 1;
  // Seen from above with no floor in front of the base (it touches the canvas's bottom edge): thrown behind.
  const roomInFront = alpha.height - 1 - shape.base >= objectHeight * TOP_STANDING.squash * 0.5;
  if (lying) cast = dropShadow(alpha, shape, light);
  else if (view === 'top' && roomInFront)
    cast = projectedShadow(alpha, shape, light, TOP_STANDING.squash, TOP_STANDING);
  else {
    const room = floorTop === undefined ? FRONT.squash : (shape.base - floorTop) / objectHeight;
    cast = projectedShadow(alpha, shape, light, Math.min(FRONT.squash, Math.max(0.06, room)), FRONT);
  }
  for (let i = 0; i < out.length; i++) {
    const value = 1 - (1 - contact.data[i]) * (1 - cast.data[i]);
    out[i] = value < NONE ? 0 : Math.min(1, value);
  }
  return plane;
}

/**
 * The footprint's lowest rows (6 % of the object's height), nudged down and slightly blurred: the dark line
 * where it meets the floor; plus a soft pool around the footprint, an ellipse `aspect` times as high as wide.
 */
function contactShadow(alpha: Plane, shape: ObjectShape, foot: Footprint, aspect: number): Plane {
  const { width, height } = alpha;
  const band = new Float32Array(width * height);
  const depth = Math.max(1, Math.round((shape.base - shape.top + 1) * 0.06));
  const drop = Math.max(1, Math.round(shape.size * 0.006));
  for (let x = foot.left; x <= foot.right; x++) {
    if (!foot.columns[x]) continue;
    const lowest = shape.bottom[x];
    for (let y = Math.max(0, lowest - depth); y <= lowest; y++) {
      const to = Math.min(height - 1, y + drop);
      band[to * width + x] = Math.max(band[to * width + x], alpha.data[y * width + x]);
    }
  }
  const tight = gaussianMean({ data: band, width, height }, Math.max(0.8, shape.size * 0.01));
  const spread = Math.max(2, shape.size * 0.05);
  const reach = spread * 3;
  for (let y = 0; y < height; y++) {
    const dy = (y - shape.base - drop) / aspect;
    if (Math.abs(dy) > reach) continue;
    for (let x = Math.max(0, Math.floor(foot.left - reach)); x <= Math.min(width - 1, foot.right + reach); x++) {
      const dx = x < foot.left ? foot.left - x : x > foot.right ? x - foot.right : 0;
      const pool = 0.38 * Math.exp(-(dx * dx + dy * dy) / (2 * spread * spread));
      const i = y * width + x;
      const dark = Math.min(1, tight.data[i] * 1.6) * 0.78;
      tight.data[i] = 1 - (1 - dark) * (1 - pool);
    }
  }
  return tight;
}

/** Sources from the footprint up to the top; where each row lands on the floor and how soft it is there. */
function projectedShadow(
  alpha: Plane,
  shape: ObjectShape,
  light: SceneLight,
  squash: number,
  projection: { lean: number; direction: 1 | -1 },
): Plane {
  const { width, height } = alpha;
  const projected = new Float32Array(width * height);
  const base = shape.base;
  const objectHeight = base - shape.top + 1;
  const lean = light.lean * projection.lean;
  const reach = Math.max(1, Math.ceil(objectHeight * squash));
  for (let step = 0; step <= reach; step++) {
    const yd = base + projection.direction * step;
    if (yd < 0 || yd >= height) break;
    // the source rows that land on this floor row
    const from = Math.max(shape.top, Math.round(base - (step + 0.5) / squash));
    const to = Math.min(base, Math.round(base - Math.max(0, step - 0.5) / squash));
    for (let ys = from; ys <= to; ys++) {
      const shift = Math.round((base - ys) * lean);
      for (let xs = shape.left; xs <= shape.right; xs++) {
        const xd = xs + shift;
        if (xd < 0 || xd >= width) continue;
        const value = alpha.data[ys * width + xs];
        if (value > projected[yd * width + xd]) projected[yd * width + xd] = value;
      }
    }
  }
  const sigma = Math.max(1, shape.size * 0.018 * light.softness);
  const near = gaussianMean({ data: projected, width, height }, sigma);
  const far = gaussianMean({ data: projected, width, height }, sigma * 3.5);
  const opacity = Math.min(0.85, 0.5 * light.opacity);
  for (let y = 0; y < height; y++) {
    const t = Math.min(1, Math.max(0, (projection.direction * (y - base)) / reach));
    const fade = opacity * (1 - 0.65 * t);
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      near.data[i] = (near.data[i] * (1 - t) + far.data[i] * t) * fade;
    }
  }
  return near;
}

/** Where `alpha` lands offset by (dx, dy) cells. */
function offset(alpha: Plane, shape: ObjectShape, dx: number, dy: number): Plane {
  const { width, height } = alpha;
  const shifted = new Float32Array(width * height);
  for (let y = shape.top; y <= shape.base; y++) {
    const to = y + dy;
    if (to < 0 || to >= height) continue;
    for (let x = shape.left; x <= shape.right; x++) {
      const tx = x + dx;
      if (tx >= 0 && tx < width) shifted[to * width + tx] = alpha.data[y * width + x];
    }
  }
  return { data: shifted, width, height };
}

/** A flat object's contact: its outline nudged away from the light, tightly blurred (the dark line under its edge). */
function lyingContact(alpha: Plane, shape: ObjectShape, light: SceneLight): Plane {
  const nudge = Math.max(1, Math.round(shape.size * 0.006));
  const shifted = offset(alpha, shape, Math.round(Math.sign(light.lean) * nudge), nudge);
  const tight = gaussianMean(shifted, Math.max(0.8, shape.size * 0.008));
  for (let i = 0; i < tight.data.length; i++) tight.data[i] = Math.min(1, tight.data[i] * 1.4) * 0.55;
  return tight;
}

/** A flat object's cast shadow: its outline offset down and away from the light, softly blurred. */
function dropShadow(alpha: Plane, shape: ObjectShape, light: SceneLight): Plane {
  const dx = Math.round(light.lean * shape.thickness * 0.08);
  const dy = Math.round(shape.thickness * 0.07);
  const soft = gaussianMean(offset(alpha, shape, dx, dy), Math.max(1, shape.thickness * 0.07 * light.softness));
  const opacity = Math.min(0.8, 0.42 * light.opacity);
  for (let i = 0; i < soft.data.length; i++) soft.data[i] *= opacity;
  return soft;
}
