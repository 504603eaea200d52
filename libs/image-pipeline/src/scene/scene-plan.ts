import type { ColourPlan, EncodePlan, Rgba, Sides } from '../edit-plan';
import type { GenerationModel, GenerationPreference } from '../ports/generative.port';

/**
 * The typed, resolved form of a scene that {@link ImagePipeline.createScene} runs: the canvas size from the
 * aspect ratio and resolution, the placement in canvas terms, the backdrop, the encoder. Made by libs/editing's
 * scene planner from a validated request; the pipeline parses nothing.
 */

/**
 * Where the object goes on the canvas.
 * - `absolute`: the object (rotated clockwise by `rotation` degrees) fitted to `scale` of the canvas, its centre
 *   at `centre` (fractions of the canvas, x from the left, y from the TOP: the planner turned the contract's
 *   bottom-based y around);
 * - `original`: the object keeps its place and size within its own image, which is fitted inside the canvas;
 * - `padding`: the object fitted inside the canvas less `sides` (pixels), centred there.
 */
export type ScenePlacementPlan =
  | { type: 'absolute'; scale: number; rotation: number; centre: { x: number; y: number } }
  | { type: 'original' }
  | { type: 'padding'; sides: Sides };

/** The backdrop: shadows on a colour (alpha 0: transparent), a prompt's studio, or a template. */
export type SceneBackgroundPlan =
  | { kind: 'shadows'; colour: Rgba; view: 'auto' | 'top' | 'front' }
  | { kind: 'prompt'; colour?: Rgba }
  | { kind: 'template'; mode: 'transform' | 'adjust' | 'lock'; view: 'top' | 'front'; colour?: Rgba };

export interface ScenePlan {
  width: number;
  height: number;
  placement: ScenePlacementPlan;
  background: SceneBackgroundPlan;
  /** 1..4 images, each from its own seed and variant. */
  images: number;
  encode: EncodePlan;
  colour: ColourPlan;
  generation: {
    model: GenerationModel;
    steps?: number;
    preference: GenerationPreference;
    prompt?: string;
    negativePrompt?: string;
    generate: boolean;
    guidelines?: string;
    /** The first image's seed; image i uses seed + i. */
    seed: number;
  };
}
