import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, IsBoolean, IsIn, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { BackgroundDto } from './background.dto';
import {
  IsLocation,
  IsNumberIn,
  IsSideLengths,
  IsStringOfLength,
  LOCATION_MAX_LENGTH,
  PADDING_RULE,
} from './edit-values';
import { ResizingDto } from './resizing.dto';

export const UPSCALE_MODELS = ['smart_enhance', 'smart_resize', 'digital_art', 'faces', 'photo'] as const;
export type UpscaleModel = (typeof UPSCALE_MODELS)[number];
export const DECOMPRESS_STRENGTHS = ['moderate', 'strong', 'auto'] as const;
export type DecompressStrength = (typeof DECOMPRESS_STRENGTHS)[number];

/** Style prompt: the contract's prompt length (3..2048 characters, as for scene prompts). */
export const STYLE_PROMPT_LENGTH = { min: 3, max: 2048 } as const;

export class RestorationsDto {
  @ApiPropertyOptional({
    enum: UPSCALE_MODELS,
    description:
      'Model used when resizing enlarges the image (without an enlarging size the image is enlarged 2x): `smart_enhance` small low-quality product, real-estate and food images; `smart_resize` high-quality images and small text; `digital_art` drawings and illustrations; `faces` people; `photo` phone and camera photos. Off by default.',
  })
  @IsOptional()
  @IsIn(UPSCALE_MODELS)
  upscale?: UpscaleModel;

  @ApiPropertyOptional({
    enum: DECOMPRESS_STRENGTHS,
    description: 'Removes compression artefacts; `auto` picks the strength. Off by default.',
  })
  @IsOptional()
  @IsIn(DECOMPRESS_STRENGTHS)
  decompress?: DecompressStrength;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'Redraws details to be sharper. The target size must not exceed 16 MP.',
  })
  @IsOptional()
  @IsBoolean()
  polish?: boolean;
}

export class PrivacyDto {
  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description:
      'Blurs car number plates beyond recognition, with the plate around them: text regions shaped like a ' +
      "plate's characters (one short, contrasted line on a one-coloured surface). Any such text is blurred.",
  })
  @IsOptional()
  @IsBoolean()
  blur_car_plate?: boolean;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description:
      'Cuts away everything above the line between nose and mouth of every detected person (the lowest such line when there are several). No face found: the image is not cut and the response carries the notice `NO_FACE_FOUND` in `notices`.',
  })
  @IsOptional()
  @IsBoolean()
  identity_crop?: boolean;
}

const UNIT_INTERVAL = { type: Number, minimum: 0, maximum: 1 } as const;

export class StyleTransferDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: LOCATION_MAX_LENGTH,
    description: 'Reference image: an http(s) URL or `storage://<storage_name>/<path>`. Give it, `prompt`, or both.',
    example: 'https://example.com/styles/watercolour.jpg',
  })
  @IsOptional()
  @IsLocation(LOCATION_MAX_LENGTH, 'refuse')
  style_reference_image?: string;

  @ApiPropertyOptional({
    minLength: STYLE_PROMPT_LENGTH.min,
    maxLength: STYLE_PROMPT_LENGTH.max,
    description: 'Text that steers the style.',
    example: 'soft watercolour, pastel tones',
  })
  @IsOptional()
  @IsStringOfLength(STYLE_PROMPT_LENGTH.min, STYLE_PROMPT_LENGTH.max)
  prompt?: string;

  @ApiPropertyOptional({ ...UNIT_INTERVAL, default: 0.75, description: 'Higher takes more of the reference style.' })
  @IsOptional()
  @IsNumberIn(0, 1)
  style_strength?: number;

  @ApiPropertyOptional({
    ...UNIT_INTERVAL,
    default: 0.75,
    description: 'Higher gives more colour and texture creativity.',
  })
  @IsOptional()
  @IsNumberIn(0, 1)
  denoising_strength?: number;

  @ApiPropertyOptional({ ...UNIT_INTERVAL, default: 1, description: 'Higher preserves more composition and shape.' })
  @IsOptional()
  @IsNumberIn(0, 1)
  depth_strength?: number;
}

export class GenerativeDto {
  @ApiPropertyOptional({
    type: () => StyleTransferDto,
    description: 'Restyles the image. Cannot be combined with background removal or blur.',
  })
  @IsOptional()
  @IsObject({ message: '$property must be an object' })
  @ValidateNested()
  @Type(() => StyleTransferDto)
  style_transfer?: StyleTransferDto;
}

/**
 * The operations of one edit. Groups that hold a union (resizing, background) are walked by
 * operations.resolver.ts; every group is an object with no other members.
 */
export class OperationsDto {
  @ApiPropertyOptional({ type: () => RestorationsDto })
  @Allow()
  restorations?: RestorationsDto;

  @ApiPropertyOptional({
    type: () => ResizingDto,
    description: 'Both width and height absent: the size is unchanged.',
  })
  @Allow()
  resizing?: ResizingDto;

  @ApiPropertyOptional({ type: () => BackgroundDto })
  @Allow()
  background?: BackgroundDto;

  @ApiPropertyOptional({
    type: 'string',
    description: `Space added around the image, filled with the background colour: ${PADDING_RULE}. Each value at most 50% of the image side.`,
    example: '10%',
  })
  @IsOptional()
  @IsSideLengths(true)
  padding?: string;

  @ApiPropertyOptional({ type: () => PrivacyDto })
  @Allow()
  privacy?: PrivacyDto;

  @ApiPropertyOptional({ type: () => GenerativeDto })
  @Allow()
  generative?: GenerativeDto;
}
