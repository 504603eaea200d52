import { ServiceException } from '@app/common';
import {
  absent,
  compact,
  isPlainObject,
  Issues,
  memberOf,
  pathOf,
  validateShape,
  type DtoClass,
} from '../dto/dto-validation';
import { parseColour, parseSideLengths, type Colour, type SideLengths } from '../dto/edit-values';
import { isOutputFormat } from '../dto/format-options.dto';
import { readFormat } from '../dto/output.resolver';
import type { FormatOptions } from '../edit-request.model';
import { transparencyProblem } from '../edit-rules';
import {
  AbsoluteObjectDto,
  AdvancedPromptDto,
  EffectSceneDto,
  OriginalObjectDto,
  PaddingObjectDto,
  PLACEMENT_TYPES,
  PositionDto,
  PromptSceneDto,
  SceneOutputOptionsDto,
  SceneRequestDto,
  TemplateSceneDto,
  type AspectRatio,
  type Preference,
  type PlacementType,
  type Resolution,
  type SceneModelName,
  type TemplateMode,
} from './scene-request.dto';

/** Where the object goes: the contract's three placements, defaults filled. */
export type ScenePlacement =
  | { type: 'absolute'; rotation: number; scale: number; position: { x: number; y: number } }
  | { type: 'original' }
  | { type: 'padding'; padding: SideLengths };

/** A prompt: the client's text, or (`generate`) one made from the image, steered by `guidelines`. */
export type ScenePrompt = { text: string; generate: false } | { generate: true; guidelines?: string };

type Rgb = Extract<Colour, { kind: 'rgb' }>;

export type SceneVariant =
  | { kind: 'effect'; effect: 'shadows'; colour: Colour; view: 'auto' | 'top' | 'front' }
  | { kind: 'prompt'; prompt: ScenePrompt; colour?: Rgb; preference: Preference }
  | {
      kind: 'template';
      templateUrl: string;
      view: 'top' | 'front';
      mode: TemplateMode;
      colour?: Rgb;
      prompt?: ScenePrompt;
    };

export interface SceneRequest {
  object: { imageUrl: string; placement: ScenePlacement };
  scene: SceneVariant & {
    model: SceneModelName;
    aspectRatio: AspectRatio;
    negativePrompt?: string;
    steps?: number;
  };
  output: {
    numberOfImages: number;
    destination?: string;
    format: FormatOptions;
    resolution: Resolution;
  };
}

/** The contract's default output: four PNG images of 1 MP in the temporary bucket. */
export const DEFAULT_SCENE_IMAGES = 4;

const OBJECT_CLASSES: Record<PlacementType, DtoClass<AbsoluteObjectDto | OriginalObjectDto | PaddingObjectDto>> = {
  absolute: AbsoluteObjectDto,
  original: OriginalObjectDto,
  padding: PaddingObjectDto,
};

function readObject(raw: unknown, issues: Issues): SceneRequest['object'] | undefined {
  const path = 'object';
  if (!isPlainObject(raw)) {
    issues.add(path, absent(raw) ? 'object is required' : 'object must be an object');
    return undefined;
  }
  const type = absent(raw.placement_type) ? 'absolute' : raw.placement_type;
  if (typeof type !== 'string' || !(PLACEMENT_TYPES as readonly string[]).includes(type)) {
    issues.add(
      `${path}.placement_type`,
      `placement_type must be one of the following values: ${PLACEMENT_TYPES.join(', ')}`,
    );
    return undefined;
  }
  const placementType = type as PlacementType;
  const dto = validateShape(OBJECT_CLASSES[placementType], raw, path, issues, {
    variant: `the ${placementType} placement`,
  });
  if (!dto) return undefined;
  // scale and position are unions of their own: read even when other members have problems, for one 422
  const absolute = dto instanceof AbsoluteObjectDto ? dto : undefined;
  const scale = absolute && readScale(absolute.scale, issues);
  const position = absolute && readPosition(absolute.position, issues);
  if (issues.has(path)) return undefined;
  const imageUrl = dto.image_url;
  if (dto instanceof PaddingObjectDto) {
    const parsed = parseSideLengths(dto.padding, true);
    return 'value' in parsed ? { imageUrl, placement: { type: 'padding', padding: parsed.value } } : undefined;
  }
  if (!absolute || scale === undefined || position === undefined) return { imageUrl, placement: { type: 'original' } };
  return {
    imageUrl,
    placement: { type: 'absolute', rotation: absolute.rotation_degree ?? 0, scale, position },
  };
}

function readScale(raw: unknown, issues: Issues): number | undefined {
  if (absent(raw)) return 1;
  if (typeof raw === 'number' && (raw === 0 || (raw >= 0.01 && raw <= 1))) return Math.max(0.01, raw);
  issues.add('object.scale', 'scale must be a number from 0.01 to 1 (or the integer 0)');
  return undefined;
}

function readPosition(raw: unknown, issues: Issues): { x: number; y: number } | undefined {
  if (absent(raw)) return { x: 0.5, y: 0.5 };
  const dto = validateShape(PositionDto, raw, 'object.position', issues);
  if (!dto || issues.has('object.position')) return undefined;
  return { x: dto.x ?? 0.5, y: dto.y ?? 0.5 };
}

/** A plain prompt, or an advanced prompt object with its own rules. */
function readPrompt(raw: unknown, path: string, issues: Issues): ScenePrompt | undefined {
  if (typeof raw === 'string') {
    if (raw.length >= 3 && raw.length <= 2048) return { text: raw, generate: false };
    issues.add(path, 'prompt must be a string of 3 to 2048 characters, or an object {text, generate, guidelines}');
    return undefined;
  }
  if (!isPlainObject(raw)) {
    issues.add(path, 'prompt must be a string of 3 to 2048 characters, or an object {text, generate, guidelines}');
    return undefined;
  }
  const dto = validateShape(AdvancedPromptDto, raw, path, issues);
  if (!dto || issues.has(path)) return undefined;
  if (dto.generate === true) {
    if (!absent(dto.text)) issues.add(pathOf(path, 'text'), 'text is not allowed when generate is true');
    return issues.has(path) ? undefined : compact({ generate: true as const, guidelines: dto.guidelines ?? undefined });
  }
  if (!absent(dto.guidelines))
    issues.add(pathOf(path, 'guidelines'), 'guidelines are allowed only when generate is true');
  if (absent(dto.text)) issues.add(pathOf(path, 'text'), 'text is required unless generate is true');
  return issues.has(path) ? undefined : { text: dto.text as string, generate: false };
}

/** `color` of prompt and template scenes: a hexadecimal colour; `transparent` is the background effect's alone. */
function checkOpaque(raw: Record<string, unknown>, issues: Issues): void {
  if (raw.color === 'transparent') {
    issues.add(
      'scene.color',
      'color must be a hexadecimal colour; "transparent" is only for the background effect (effect: shadows)',
    );
  }
}

function rgb(raw: string | undefined): Rgb | undefined {
  if (raw === undefined) return undefined;
  const parsed = parseColour(raw);
  return 'value' in parsed && parsed.value.kind === 'rgb' ? parsed.value : undefined;
}

/** `effect` present: background effect; `template_url` present: template; otherwise prompt (docs/api-contract.md, "Scene create"). */
function readScene(raw: unknown, issues: Issues): SceneRequest['scene'] | undefined {
  const path = 'scene';
  if (!isPlainObject(raw)) {
    issues.add(path, absent(raw) ? 'scene is required' : 'scene must be an object');
    return undefined;
  }
  const shared = (dto: { model?: SceneModelName; aspect_ratio?: AspectRatio }) => ({
    model: dto.model ?? ('v1' as const),
    aspectRatio: dto.aspect_ratio ?? ('1:1' as const),
  });
  if (!absent(raw.effect)) {
    const dto = validateShape(EffectSceneDto, raw, path, issues, { variant: 'the background effect scene (effect)' });
    if (!dto || issues.has(path)) return undefined;
    const colour = dto.color === undefined ? undefined : parseColour(dto.color);
    return {
      kind: 'effect',
      effect: 'shadows',
      colour: colour && 'value' in colour ? colour.value : { kind: 'rgb', r: 255, g: 255, b: 255 },
      view: dto.view ?? 'auto',
      ...shared(dto),
    };
  }
  checkOpaque(raw, issues);
  if (!absent(raw.template_url)) {
    const dto = validateShape(TemplateSceneDto, raw, path, issues, { variant: 'the template scene (template_url)' });
    const prompt = dto && !absent(dto.prompt) ? readPrompt(dto.prompt, `${path}.prompt`, issues) : undefined;
    if (!dto || issues.has(path)) return undefined;
    return compact({
      kind: 'template' as const,
      templateUrl: dto.template_url,
      view: dto.view,
      mode: dto.template_mode ?? 'transform',
      colour: rgb(dto.color),
      prompt,
      negativePrompt: dto.negative_prompt ?? undefined,
      steps: dto.steps ?? undefined,
      ...shared(dto),
    });
  }
  const dto = validateShape(PromptSceneDto, raw, path, issues, { variant: 'the prompt scene' });
  if (dto && absent(dto.prompt)) {
    issues.add(`${path}.prompt`, 'prompt is required: a scene has an effect, a template_url or a prompt');
  }
  const prompt = dto && !absent(dto.prompt) ? readPrompt(dto.prompt, `${path}.prompt`, issues) : undefined;
  if (!dto || !prompt || issues.has(path)) return undefined;
  return compact({
    kind: 'prompt' as const,
    prompt,
    colour: rgb(dto.color),
    preference: dto.preference ?? 'optimal',
    negativePrompt: dto.negative_prompt ?? undefined,
    steps: dto.steps ?? undefined,
    ...shared(dto),
  });
}

function readSceneOutput(raw: unknown, issues: Issues): SceneRequest['output'] | undefined {
  const path = 'output';
  const defaults = {
    numberOfImages: DEFAULT_SCENE_IMAGES,
    format: readFormat('png', path, issues)!,
    resolution: '1MP' as const,
  };
  if (absent(raw)) return defaults;
  if (typeof raw === 'string') {
    const dto = validateShape(SceneOutputOptionsDto, { destination: raw }, path, issues);
    return dto && !issues.has(path) ? { ...defaults, destination: raw } : undefined;
  }
  const dto = validateShape(SceneOutputOptionsDto, raw, path, issues);
  if (!dto) return undefined;
  const format = absent(dto.format) ? defaults.format : readFormat(dto.format, pathOf(path, 'format'), issues);
  if (issues.has(path) || !format) return undefined;
  return compact({
    numberOfImages: dto.number_of_images ?? DEFAULT_SCENE_IMAGES,
    destination: dto.destination ?? undefined,
    format,
    resolution: dto.resolution ?? '1MP',
  });
}

/** The rules across members: 2 MP, transparency, a destination for several images. Read from raw members. */
function checkAcross(body: Record<string, unknown>, request: Partial<SceneRequest>, issues: Issues): void {
  const scene = body.scene;
  const output = body.output;
  if (memberOf(output, 'resolution') === '2MP') {
    const model = memberOf(scene, 'model') ?? 'v1';
    if (!absent(memberOf(scene, 'effect'))) {
      issues.add('output.resolution', '2MP is not available with scene.effect; use 1MP');
    } else if (model !== 'v2') {
      issues.add('output.resolution', `2MP needs scene.model "v2" (the scene's model is "${String(model)}")`);
    }
  }
  const format = memberOf(output, 'format');
  const formatType = isPlainObject(format) ? format.type : (format ?? 'png');
  if (memberOf(scene, 'color') === 'transparent' && !absent(memberOf(scene, 'effect')) && isOutputFormat(formatType)) {
    const problem = transparencyProblem(formatType, true);
    if (problem) issues.add('scene.color', problem);
  }
  const out = request.output;
  if (out?.destination && out.numberOfImages > 1 && !out.destination.endsWith('/')) {
    issues.add(
      typeof output === 'string' ? 'output' : 'output.destination',
      `with ${out.numberOfImages} images the destination must be a folder (ending in "/"); set output.number_of_images to 1 to write one file`,
    );
  }
}

/**
 * Validates a scene request and returns it normalised (variants chosen, defaults filled). Every problem is
 * answered together in one 422 whose details map dotted paths (`scene.prompt.text`) to messages.
 */
export function parseSceneRequest(body: unknown): SceneRequest {
  if (!isPlainObject(body)) throw ServiceException.validation({ body: ['must be a JSON object'] });
  const issues = new Issues();
  validateShape(SceneRequestDto, body, '', issues);
  const object = readObject(body.object, issues);
  const scene = readScene(body.scene, issues);
  const output = readSceneOutput(body.output, issues);
  checkAcross(body, { output }, issues);
  issues.throwIfAny();
  return { object: object!, scene: scene!, output: output! };
}
