import type { ObjectTone, PortColour } from '@app/image-pipeline';
import { readPrompt } from '../prompt-vocabulary';
import { chooseView, measureObject, type ObjectShape } from './object-shape';
import { sceneLight, type SceneLight } from './scene-light';
import { shadowPlane } from './scene-shadow';
import { floorLine, studioBackdrop } from './studio-backdrop';
import { templateScene } from './template-scene';
import { enlarge, enlargeAxis, workGrid, type Axis, type WorkGrid } from './work-grid';

/**
 * The local backend's scene: a deterministic CPU drawing of everything behind the object (backdrop, shadow,
 * reflection); the pipeline composites the object's original pixels on top afterwards.
 */
export interface SceneRenderInput {
  width: number;
  height: number;
  /** 4 channels, width*height*4: the object at its final place; alpha (0..255) is its mask. */
  object: Uint8Array;
  background:
    | { kind: 'shadows'; colour: PortColour | 'transparent'; view: 'auto' | 'top' | 'front' }
    | { kind: 'prompt'; colour?: PortColour }
    | {
        kind: 'template';
        /** 3 channels, cover-fitted, the canvas's size. */
        template: Uint8Array;
        mode: 'transform' | 'adjust' | 'lock';
        view: 'top' | 'front';
        colour?: PortColour;
      };
  prompt?: string;
  negativePrompt?: string;
  /** 1..49; absent: the default of the preference. */
  steps?: number;
  preference: 'fast' | 'optimal' | 'best';
  seed: number;
  /** 0..3: the request's n-th image. */
  variant: number;
}

export interface SceneRenderOutput {
  data: Uint8Array;
  /** 4 only for a transparent backdrop (the shadow is black with alpha). */
  channels: 3 | 4;
  /** `adjust` only. */
  objectTone?: ObjectTone;
  details: Record<string, string | number>;
}

/**
 * Quality against time. `steps` (when given) or `preference` picks a level; the level sets the work grid of the
 * shadows and reflections (finer = smoother edges on large canvases), the octaves of the surfaces' noise (finer
 * detail in marble veins, concrete, stone) and whether the reflection blurs more with distance (two blurs mixed)
 * or once. Nothing else depends on it, so a fast scene has the same layout and light as a best one.
 */
export interface SceneQuality {
  name: 'fast' | 'optimal' | 'best';
  gridSide: number;
  octaves: number;
  reflectionPasses: 1 | 2;
}

const QUALITIES: Readonly<Record<SceneQuality['name'], SceneQuality>> = {
  fast: { name: 'fast', gridSide: 192, octaves: 3, reflectionPasses: 1 },
  optimal: { name: 'optimal', gridSide: 256, octaves: 5, reflectionPasses: 2 },
  best: { name: 'best', gridSide: 384, octaves: 6, reflectionPasses: 2 },
};

export function sceneQuality(steps: number | undefined, preference: SceneQuality['name']): SceneQuality {
  if (steps === undefined) return QUALITIES[preference];
  return QUALITIES[steps <= 10 ? 'fast' : steps <= 30 ? 'optimal' : 'best'];
}

/** What every kind of scene shares: the object on the work grid, its shape, the light and the shadow. */
export interface SceneContext {
  input: SceneRenderInput;
  quality: SceneQuality;
  grid: WorkGrid;
  shape: ObjectShape;
  light: SceneLight;
  across: Axis;
  down: Axis;
  /** The shadow's opacity per canvas pixel, 0..1 (exactly 0 away from the object). */
  shadow: Float32Array;
  view: 'top' | 'front';
}

export function renderScene(input: SceneRenderInput): SceneRenderOutput {
  const { width, height, object, background } = input;
  if (object.length !== width * height * 4) throw new RangeError('object must be width*height*4 bytes');
  const quality = sceneQuality(input.steps, input.preference);
  const reading = readPrompt(input.prompt, input.negativePrompt);
  const grid = workGrid(object, width, height, quality.gridSide);
  const shape = measureObject(grid);
  const requested = background.kind === 'prompt' ? 'auto' : background.view;
  const view = requested === 'auto' ? chooseView(shape, grid.height) : requested;
  const light = sceneLight(input.variant, input.seed, reading.lights);
  const across = enlargeAxis(width, grid.width, grid.factor);
  const down = enlargeAxis(height, grid.height, grid.factor);
  // A studio's floor ends at its floor line: the shadow is laid on the floor below it.
  const floorTop = background.kind === 'prompt' ? floorLine(shape, grid, height) / grid.factor : undefined;
  const plane = shadowPlane(grid.alpha, shape, view, light, floorTop);
  const shadow = enlarge(plane, across, down, new Float32Array(width * height));
  const context: SceneContext = { input, quality, grid, shape, light, across, down, shadow, view };
  const details: Record<string, string | number> = { view, quality: quality.name };
  if (reading.ignored.length > 0) details.ignored = reading.ignored.join(' ');
  if (reading.lights.length > 0) details.lights = reading.lights.join(' ');
  if (background.kind === 'shadows') return { ...shadowScene(context, background.colour), details };
  if (background.kind === 'prompt') {
    const studio = studioBackdrop(context, reading, background.colour);
    return { data: studio.data, channels: 3, details: { ...details, ...studio.details } };
  }
  const scene = templateScene(context, reading, background);
  return { data: scene.data, channels: 3, objectTone: scene.objectTone, details: { ...details, ...scene.details } };
}

/** A flat backdrop of `colour` darkened by the shadow, or (transparent) the shadow alone as black with alpha. */
function shadowScene(context: SceneContext, colour: PortColour | 'transparent'): Omit<SceneRenderOutput, 'details'> {
  const { shadow } = context;
  if (colour === 'transparent') {
    const data = new Uint8Array(shadow.length * 4);
    for (let i = 0; i < shadow.length; i++) data[i * 4 + 3] = Math.round(shadow[i] * 255);
    return { data, channels: 4 };
  }
  const data = new Uint8Array(shadow.length * 3);
  for (let i = 0; i < shadow.length; i++) {
    const keep = 1 - shadow[i];
    data[i * 3] = Math.round(colour.r * keep);
    data[i * 3 + 1] = Math.round(colour.g * keep);
    data[i * 3 + 2] = Math.round(colour.b * keep);
  }
  return { data, channels: 3 };
}
