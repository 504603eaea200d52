import { createHash } from 'node:crypto';
import type { ImageProbe, Rgba, ScenePlan } from '@app/image-pipeline';
import type { Colour } from '../dto/edit-values';
import { encodePlan } from '../edit-planner';
import { resolveSides } from '../plan-sizes';
import type { SceneRequest } from './scene-request';

/** The pixel budgets of `output.resolution`: 1024x1024 and 1440x1440 for 1:1 (docs/api-contract.md, "Scene create"). */
const BUDGET = { '1MP': 1024 * 1024, '2MP': 1440 * 1440 } as const;

/**
 * The output size: the aspect ratio with the resolution's pixel budget, each side rounded to a multiple of 8
 * (1:1 -> 1024x1024 or 1440x1440; 16:9 at 1 MP -> 1368x768).
 */
export function sceneSize(aspectRatio: string, resolution: keyof typeof BUDGET): { width: number; height: number } {
  const [across, down] = aspectRatio.split(':').map(Number);
  const budget = BUDGET[resolution];
  const round8 = (value: number) => Math.max(8, Math.round(value / 8) * 8);
  return { width: round8(Math.sqrt((budget * across) / down)), height: round8(Math.sqrt((budget * down) / across)) };
}

function rgba(colour: Colour | undefined): Rgba | undefined {
  if (!colour) return undefined;
  return colour.kind === 'transparent'
    ? { r: 0, g: 0, b: 0, alpha: 0 }
    : { r: colour.r, g: colour.g, b: colour.b, alpha: 1 };
}

/**
 * The seed of a request's first image: the same request gives the same images (the local backend is
 * deterministic), a changed one other images. Where results go does not change them.
 */
export function sceneSeed(request: SceneRequest): number {
  const output = { ...request.output, destination: undefined };
  const digest = createHash('sha256')
    .update(JSON.stringify({ object: request.object, scene: request.scene, output }))
    .digest();
  return digest.readUInt32BE(0) & 0x7fffffff;
}

/**
 * A validated scene request as the pipeline's {@link ScenePlan}: the canvas from the aspect ratio and resolution,
 * the placement in canvas terms (padding in pixels, at most half a side: 422), the backdrop, the encoder.
 */
export function planScene(request: SceneRequest, _object: Pick<ImageProbe, 'width' | 'height'>): ScenePlan {
  const { width, height } = sceneSize(request.scene.aspectRatio, request.output.resolution);
  const placement = request.object.placement;
  const scene = request.scene;
  const prompt = scene.kind === 'effect' ? undefined : scene.prompt;
  return {
    width,
    height,
    placement:
      placement.type === 'absolute'
        ? {
            type: 'absolute',
            scale: placement.scale,
            rotation: placement.rotation,
            // the contract's y is 0 at the bottom edge
            centre: { x: placement.position.x, y: 1 - placement.position.y },
          }
        : placement.type === 'padding'
          ? { type: 'padding', sides: resolveSides(placement.padding, width, height, 'object.padding') }
          : { type: 'original' },
    background:
      scene.kind === 'effect'
        ? { kind: 'shadows', colour: rgba(scene.colour)!, view: scene.view }
        : scene.kind === 'prompt'
          ? { kind: 'prompt', colour: rgba(scene.colour) }
          : { kind: 'template', mode: scene.mode, view: scene.view, colour: rgba(scene.colour) },
    images: request.output.numberOfImages,
    encode: encodePlan(request.output.format.type, request.output.format),
    colour: { space: 'rgb' },
    generation: {
      model: scene.model,
      steps: scene.steps,
      preference: scene.kind === 'prompt' ? scene.preference : 'optimal',
      prompt: prompt && !prompt.generate ? prompt.text : undefined,
      negativePrompt: scene.negativePrompt,
      generate: prompt?.generate ?? false,
      guidelines: prompt?.generate ? prompt.guidelines : undefined,
      seed: sceneSeed(request),
    },
  };
}
