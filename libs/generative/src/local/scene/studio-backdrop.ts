import type { PortColour } from '@app/image-pipeline';
import type { PromptReading, Surface } from '../prompt-vocabulary';
import type { ObjectShape } from './object-shape';
import { applyTint } from './scene-light';
import type { SceneContext } from './render-scene';
import { reflectionPlanes } from './scene-reflection';
import { ValueNoise } from './seeded-noise';
import { SURFACE_COLOURS, surfaceTexture, WALL_TEXTURED, type SurfaceTexture } from './surface-texture';
import { enlarge, type WorkGrid } from './work-grid';

/**
 * A photographic studio backdrop for a prompt: a wall that curves into a floor (the floor line a little above
 * the object's base, so that the object stands on the floor), the prompt's surface on the floor (in perspective)
 * and, for backdrop materials, faintly on the wall; light falling off away from the variant's key light; the
 * shadow; and, on glossy floors (marble, or any surface called glossy), a faded mirror image of the object.
 *
 * Colours: `colour` then the prompt's colours, in order: the first is the base of wall and floor, the second the
 * floor, the third the accent (veins, chips, rings); the surface's own colours fill in what is not named.
 */

/** Surfaces that are materials of a sweep: the wall curves into the floor over a wide band; others meet it at an edge. */
const SWEEPS: ReadonlySet<Surface> = new Set(['plain', 'paper', 'linen', 'concrete']);

/** The canvas row where the wall meets the floor: 22 % of the object's height above its base, within 30..86 %. */
export function floorLine(shape: ObjectShape, grid: WorkGrid, height: number): number {
  if (!shape.present) return height * 0.62;
  const base = (shape.base + 1) * grid.factor;
  const objectHeight = (shape.base - shape.top + 1) * grid.factor;
  return Math.min(height * 0.86, Math.max(height * 0.3, base - objectHeight * 0.22));
}

interface Palette {
  wall: PortColour;
  floor: PortColour;
  accent: PortColour;
}

function studioPalette(surface: Surface, reading: PromptReading, colour: PortColour | undefined): Palette {
  const named = colour ? [colour, ...reading.colours] : reading.colours;
  const defaults = SURFACE_COLOURS[surface];
  return {
    wall: named[0] ?? defaults.wall,
    floor: named[1] ?? named[0] ?? defaults.floor,
    accent: named[2] ?? defaults.accent,
  };
}

export function studioBackdrop(
  context: SceneContext,
  reading: PromptReading,
  colour: PortColour | undefined,
): { data: Uint8Array; details: Record<string, string | number> } {
  const { input, shape, grid, quality } = context;
  const surface = reading.surface ?? 'plain';
  const palette = studioPalette(surface, reading, colour);
  const glossy = reading.finish === 'glossy' || (surface === 'marble' && reading.finish !== 'matte');
  const reflection = glossy
    ? [reflectionPlanes(grid, shape, reading.finish === 'glossy' ? 0.42 : 0.32, quality.reflectionPasses)].flatMap(
        (planes) => [planes.alpha, ...planes.colour],
      )
    : [];
  const reflected = reflection.map((plane) =>
    enlarge(plane, context.across, context.down, new Float32Array(input.width * input.height)),
  );
  const texture = surfaceTexture(surface, new ValueNoise(input.seed ^ 0x5ce9e), quality.octaves);
  const line = floorLine(shape, grid, input.height);
  const data = paint(context, { surface, palette, texture, line, reflected });
  const hex = (c: PortColour) => `#${[c.r, c.g, c.b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
  return {
    data,
    details: {
      surface,
      palette: [palette.wall, palette.floor, palette.accent].map(hex).join(' '),
      reflection: glossy ? 'yes' : 'no',
      floorLine: Math.round(line),
    },
  };
}

interface Studio {
  surface: Surface;
  palette: Palette;
  texture: SurfaceTexture;
  line: number;
  /** Empty, or the reflection's opacity and premultiplied colour at canvas size. */
  reflected: Float32Array[];
}

function paint(context: SceneContext, studio: Studio): Uint8Array {
  const { input, light, shadow } = context;
  const { width, height } = input;
  const { palette, texture, line, reflected } = studio;
  const { wall, floor, accent } = palette;
  const sweep = SWEEPS.has(studio.surface);
  // A table's back edge meets the wall behind it: a narrow band (a little out of focus), the wall darker just above.
  const band = height * (sweep ? 0.09 : 0.02);
  // The floor's vanishing line, far above: a mild perspective, as from a camera at about the object's height.
  const vanishing = line - height * 0.9;
  const wallAmount = WALL_TEXTURED.has(studio.surface) ? 0.45 : 0;
  const data = new Uint8Array(width * height * 3);
  const out = new Uint8ClampedArray(data.buffer);
  const rowShade = new Float64Array(width);
  const rowMix = new Float64Array(width);
  const lightX = light.x * width;
  const lightY = line - height * 0.18;
  const reach = 1 / ((width * width + height * height) * 0.55);
  const pixel = new Float64Array(3);
  for (let y = 0; y < height; y++) {
    const t = Math.min(1, Math.max(0, (y - line) / band + 0.5));
    const onFloor = t * t * (3 - 2 * t);
    const depth = (height * 0.9) / Math.max(1, y - vanishing);
    // The top of the wall, far from the light, a little darker; the sweep's curve slightly brighter.
    const behind = sweep || y >= line ? 0 : 0.05 * Math.exp(-(((line - y) / (height * 0.035)) ** 2));
    const rowLight =
      light.exposure * (1 - 0.08 * Math.max(0, 1 - y / line) + 0.015 * (1 - Math.abs(2 * t - 1)) - behind);
    const dy2 = (y - lightY) ** 2;
    const r0 = wall.r + (floor.r - wall.r) * onFloor;
    const g0 = wall.g + (floor.g - wall.g) * onFloor;
    const b0 = wall.b + (floor.b - wall.b) * onFloor;
    rowShade.fill(0);
    rowMix.fill(0);
    if (onFloor > 0) {
      textureRow(texture, y, (x) => ((x - width / 2) / width) * depth, depth * 2.2, onFloor, rowShade, rowMix);
    }
    if (onFloor < 1 && wallAmount > 0) {
      textureRow(texture, y, (x) => x / width, y / width, wallAmount * (1 - onFloor), rowShade, rowMix);
    }
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const shade = rowShade[x];
      const mix = rowMix[x];
      const dx = x - lightX;
      const lit = rowLight * (1 - light.falloff * Math.min(1.6, (dx * dx + dy2) * reach));
      const k = lit * (1 + shade) * (1 - shadow[i]);
      pixel[0] = (r0 + (accent.r - r0) * mix) * k;
      pixel[1] = (g0 + (accent.g - g0) * mix) * k;
      pixel[2] = (b0 + (accent.b - b0) * mix) * k;
      applyTint(pixel, light.tint);
      let r = pixel[0];
      let g = pixel[1];
      let b = pixel[2];
      if (reflected.length > 0) {
        const a = reflected[0][i];
        r = r * (1 - a) + reflected[1][i] * lit;
        g = g * (1 - a) + reflected[2][i] * lit;
        b = b * (1 - a) + reflected[3][i] * lit;
      }
      out[i * 3] = r;
      out[i * 3 + 1] = g;
      out[i * 3 + 2] = b;
    }
  }
  return data;
}

/**
 * Adds one row of the surface, `amount` of it, into `shade` and `mix`: sampled at every other pixel and the pixels
 * between taken as the mean of their neighbours (the texture's finest detail is about 2 px; this halves its cost),
 * `u` per column, `v` for the row.
 */
function textureRow(
  texture: SurfaceTexture,
  y: number,
  u: (x: number) => number,
  v: number,
  amount: number,
  shade: Float64Array,
  mix: Float64Array,
): void {
  const width = shade.length;
  const sample = ROW_SAMPLE;
  let lastShade = 0;
  let lastMix = 0;
  for (let x = 0; x < width; x += 2) {
    texture.sample(u(x), v, x, y, sample);
    shade[x] += sample[0] * amount;
    mix[x] += sample[1] * amount;
    // the pixel between this sample and the previous one: their mean
    if (x > 0) {
      shade[x - 1] += ((sample[0] + lastShade) / 2) * amount;
      mix[x - 1] += ((sample[1] + lastMix) / 2) * amount;
    }
    lastShade = sample[0];
    lastMix = sample[1];
  }
  if (width % 2 === 0) {
    // the last column has no sample after it: the one before
    shade[width - 1] += lastShade * amount;
    mix[width - 1] += lastMix * amount;
  }
}

const ROW_SAMPLE = new Float64Array(2);
