import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Allow, IsBoolean, IsIn, IsOptional } from 'class-validator';
import { IsColour, IsIntegerIn, IsLocation, IsStringOfLength, LOCATION_MAX_LENGTH } from '../dto/edit-values';
import {
  AvifOptionsDto,
  JpegOptionsDto,
  PngOptionsDto,
  TiffOptionsDto,
  WebpOptionsDto,
  type FormatOptionsDto,
  type OutputFormat,
} from '../dto/format-options.dto';
import { formatSchemas } from '../dto/output.dto';
import { AbsoluteObjectDto, OriginalObjectDto, PaddingObjectDto, URL_PROPERTY } from './scene-object.dto';

export * from './scene-object.dto';

/**
 * The body of `POST /v1/scene/create` for the OpenAPI document and for the shape of each variant. Unions (the
 * object and scene variants, prompt and advanced prompt, the output) are resolved in scene-request.ts, which
 * validates the whole body and answers every problem in one 422.
 */

export const SCENE_MODELS = ['v1', 'v2-beta', 'v2'] as const;
export type SceneModelName = (typeof SCENE_MODELS)[number];
/** The contract's ratios, then the six more it accepts by decision (docs/api-contract.md, "Scene create"). */
export const ASPECT_RATIOS = [
  '21:9',
  '1:1',
  '4:3',
  '3:2',
  '2:3',
  '5:4',
  '4:5',
  '3:4',
  '16:9',
  '9:16',
  '4:7',
  '7:9',
  '9:7',
  '19:13',
  '7:4',
  '12:5',
] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];
export const SCENE_VIEWS = ['auto', 'top', 'front'] as const;
export const TEMPLATE_VIEWS = ['top', 'front'] as const;
export const TEMPLATE_MODES = ['transform', 'adjust', 'lock'] as const;
export type TemplateMode = (typeof TEMPLATE_MODES)[number];
export const PREFERENCES = ['fast', 'optimal', 'best'] as const;
export type Preference = (typeof PREFERENCES)[number];
export const RESOLUTIONS = ['1MP', '2MP'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];
export const PLACEMENT_TYPES = ['absolute', 'original', 'padding'] as const;
export type PlacementType = (typeof PLACEMENT_TYPES)[number];

export const SCENE_TEXT_LENGTH = { min: 3, max: 2048 } as const;
export const GUIDELINES_LENGTH = { min: 3, max: 1000 } as const;
export const STEPS_RANGE = { min: 1, max: 49 } as const;
export const IMAGES_RANGE = { min: 1, max: 4 } as const;

const MODEL_PROPERTY = {
  enum: SCENE_MODELS,
  default: 'v1',
  description:
    'The generation model (not an interface version). With the local backend all three draw the same way; a generator maps each to a configured checkpoint (GENERATIVE_MODEL_V1, ...).',
} as const;
const RATIO_PROPERTY = {
  enum: ASPECT_RATIOS,
  default: '1:1',
  description: 'The output aspect ratio; the size follows from `output.resolution` (1 MP: 1024x1024 for 1:1).',
} as const;
const TEXT_PROPERTY = { minLength: SCENE_TEXT_LENGTH.min, maxLength: SCENE_TEXT_LENGTH.max } as const;

export class AdvancedPromptDto {
  @ApiPropertyOptional({ ...TEXT_PROPERTY, description: 'The prompt. Not allowed when `generate` is true.' })
  @IsOptional()
  @IsStringOfLength(SCENE_TEXT_LENGTH.min, SCENE_TEXT_LENGTH.max)
  text?: string;

  @ApiPropertyOptional({
    default: false,
    description:
      'Describe the scene from the input image: a generator with captioning captions it; otherwise the prompt is built from what the service knows of the object (docs/scenes.md).',
  })
  @IsOptional()
  @IsBoolean()
  generate?: boolean;

  @ApiPropertyOptional({
    minLength: GUIDELINES_LENGTH.min,
    maxLength: GUIDELINES_LENGTH.max,
    description: 'Steers the generated prompt; only with `generate: true`.',
  })
  @IsOptional()
  @IsStringOfLength(GUIDELINES_LENGTH.min, GUIDELINES_LENGTH.max)
  guidelines?: string;
}

const PROMPT_PROPERTY = {
  oneOf: [
    { type: 'string', minLength: SCENE_TEXT_LENGTH.min, maxLength: SCENE_TEXT_LENGTH.max },
    { $ref: getSchemaPath(AdvancedPromptDto) },
  ],
};

export class EffectSceneDto {
  @ApiProperty({ enum: ['shadows'], description: 'Shadow generation around the object on a plain backdrop.' })
  @IsIn(['shadows'])
  effect: 'shadows';

  @ApiPropertyOptional(MODEL_PROPERTY)
  @IsOptional()
  @IsIn(SCENE_MODELS)
  model?: SceneModelName;

  @ApiPropertyOptional({
    description: 'The backdrop: `#rgb`, `#rrggbb`, or `transparent` (formats with alpha only). Default white.',
    example: '#f4f1ec',
  })
  @IsOptional()
  @IsColour()
  color?: string;

  @ApiPropertyOptional({
    enum: SCENE_VIEWS,
    default: 'auto',
    description:
      '`top` looks down from above, `front` looks horizontally; `auto` chooses from the object (profiling says which).',
  })
  @IsOptional()
  @IsIn(SCENE_VIEWS)
  view?: (typeof SCENE_VIEWS)[number];

  @ApiPropertyOptional(RATIO_PROPERTY)
  @IsOptional()
  @IsIn(ASPECT_RATIOS)
  aspect_ratio?: AspectRatio;
}

@ApiExtraModels(AdvancedPromptDto)
export class PromptSceneDto {
  @ApiProperty({
    ...PROMPT_PROPERTY,
    description:
      'The scene in words, or an advanced prompt. The local backend reads colours, surfaces and light (docs/scenes.md).',
    example: 'white marble table, soft warm light',
  })
  @Allow()
  prompt: string | AdvancedPromptDto;

  @ApiPropertyOptional(MODEL_PROPERTY)
  @IsOptional()
  @IsIn(SCENE_MODELS)
  model?: SceneModelName;

  @ApiPropertyOptional({ ...TEXT_PROPERTY, description: 'Things to exclude.' })
  @IsOptional()
  @IsStringOfLength(SCENE_TEXT_LENGTH.min, SCENE_TEXT_LENGTH.max)
  negative_prompt?: string;

  @ApiPropertyOptional({ minimum: STEPS_RANGE.min, maximum: STEPS_RANGE.max, description: 'More: better, slower.' })
  @IsOptional()
  @IsIntegerIn(STEPS_RANGE.min, STEPS_RANGE.max)
  steps?: number;

  @ApiPropertyOptional({ description: 'A hexadecimal colour for the scene: `#rgb` or `#rrggbb`.', example: '#d9c8b4' })
  @IsOptional()
  @IsColour()
  color?: string;

  @ApiPropertyOptional(RATIO_PROPERTY)
  @IsOptional()
  @IsIn(ASPECT_RATIOS)
  aspect_ratio?: AspectRatio;

  @ApiPropertyOptional({
    enum: PREFERENCES,
    default: 'optimal',
    description: 'fast: quicker, lower quality; best: slower.',
  })
  @IsOptional()
  @IsIn(PREFERENCES)
  preference?: Preference;
}

@ApiExtraModels(AdvancedPromptDto)
export class TemplateSceneDto {
  @ApiProperty({ ...URL_PROPERTY, description: 'The template image: an http(s) URL or a storage reference.' })
  @IsLocation(LOCATION_MAX_LENGTH, 'refuse')
  template_url: string;

  @ApiProperty({ enum: TEMPLATE_VIEWS, description: 'The viewpoint of the template.' })
  @IsIn(TEMPLATE_VIEWS)
  view: (typeof TEMPLATE_VIEWS)[number];

  @ApiPropertyOptional(MODEL_PROPERTY)
  @IsOptional()
  @IsIn(SCENE_MODELS)
  model?: SceneModelName;

  @ApiPropertyOptional({
    enum: TEMPLATE_MODES,
    default: 'transform',
    description:
      '`transform`: the template recoloured after `color` and the prompt; `adjust`: template and object harmonised slightly; `lock`: the template kept pixel for pixel outside the object and its shadow.',
  })
  @IsOptional()
  @IsIn(TEMPLATE_MODES)
  template_mode?: TemplateMode;

  @ApiPropertyOptional({ description: 'A hexadecimal colour: `#rgb` or `#rrggbb`.', example: '#8fa3b8' })
  @IsOptional()
  @IsColour()
  color?: string;

  @ApiPropertyOptional({ ...PROMPT_PROPERTY, description: 'Words that steer the template (transform, adjust).' })
  @IsOptional()
  @Allow()
  prompt?: string | AdvancedPromptDto;

  @ApiPropertyOptional({ ...TEXT_PROPERTY, description: 'Things to exclude.' })
  @IsOptional()
  @IsStringOfLength(SCENE_TEXT_LENGTH.min, SCENE_TEXT_LENGTH.max)
  negative_prompt?: string;

  @ApiPropertyOptional({ minimum: STEPS_RANGE.min, maximum: STEPS_RANGE.max })
  @IsOptional()
  @IsIntegerIn(STEPS_RANGE.min, STEPS_RANGE.max)
  steps?: number;

  @ApiPropertyOptional(RATIO_PROPERTY)
  @IsOptional()
  @IsIn(ASPECT_RATIOS)
  aspect_ratio?: AspectRatio;
}

@ApiExtraModels(JpegOptionsDto, PngOptionsDto, WebpOptionsDto, AvifOptionsDto, TiffOptionsDto)
export class SceneOutputOptionsDto {
  @ApiPropertyOptional({ minimum: IMAGES_RANGE.min, maximum: IMAGES_RANGE.max, default: 4 })
  @IsOptional()
  @IsIntegerIn(IMAGES_RANGE.min, IMAGES_RANGE.max)
  number_of_images?: number;

  @ApiPropertyOptional({
    ...URL_PROPERTY,
    description:
      '`storage://<storage_name>/<path>`. With more than one image it is a folder (ending in `/`) and the file names are generated, unique. Absent: the temporary bucket (`tmp_url`, 24 hours).',
    example: 'storage://catalogue/scenes/',
  })
  @IsOptional()
  @IsLocation(LOCATION_MAX_LENGTH, 'allow')
  destination?: string;

  @ApiPropertyOptional({
    oneOf: formatSchemas(),
    default: 'png',
    description: 'A format name or an options object chosen by `type`, as for the edit.',
  })
  @IsOptional()
  @Allow()
  format?: OutputFormat | FormatOptionsDto;

  @ApiPropertyOptional({
    enum: RESOLUTIONS,
    default: '1MP',
    description:
      '`1MP` (1024x1024 for 1:1) or `2MP` (1440x1440), the aspect ratio kept; `2MP` only with `scene.model` `v2` and no `effect`.',
  })
  @IsOptional()
  @IsIn(RESOLUTIONS)
  resolution?: Resolution;
}

@ApiExtraModels(
  AbsoluteObjectDto,
  OriginalObjectDto,
  PaddingObjectDto,
  EffectSceneDto,
  PromptSceneDto,
  TemplateSceneDto,
  SceneOutputOptionsDto,
)
export class SceneRequestDto {
  @ApiProperty({
    oneOf: [
      { $ref: getSchemaPath(AbsoluteObjectDto) },
      { $ref: getSchemaPath(OriginalObjectDto) },
      { $ref: getSchemaPath(PaddingObjectDto) },
    ],
    description: 'The product and how it is placed, chosen by `placement_type` (absent: `absolute`).',
    example: { image_url: 'https://example.com/images/bottle.png', scale: 0.6, position: { x: 0.5, y: 0.35 } },
  })
  @Allow()
  object: AbsoluteObjectDto | OriginalObjectDto | PaddingObjectDto;

  @ApiProperty({
    oneOf: [
      { $ref: getSchemaPath(EffectSceneDto) },
      { $ref: getSchemaPath(PromptSceneDto) },
      { $ref: getSchemaPath(TemplateSceneDto) },
    ],
    description:
      'The scene: `effect` present is a background effect, `template_url` present a template scene, otherwise a prompt scene.',
    example: { prompt: 'beige linen, soft warm light', aspect_ratio: '4:5' },
  })
  @Allow()
  scene: EffectSceneDto | PromptSceneDto | TemplateSceneDto;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', ...URL_PROPERTY, description: 'The destination alone.' },
      { $ref: getSchemaPath(SceneOutputOptionsDto) },
    ],
    description: 'Default `{number_of_images: 4, format: png, resolution: 1MP}`, results in the temporary bucket.',
    example: { number_of_images: 2, format: 'webp' },
  })
  @IsOptional()
  @Allow()
  output?: string | SceneOutputOptionsDto;
}
