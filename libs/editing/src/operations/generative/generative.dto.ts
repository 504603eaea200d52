import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, ValidateNested } from 'class-validator';
import { IsLocation, IsNumberIn, IsStringOfLength, LOCATION_MAX_LENGTH } from '../../dto/edit-values';

/** Style prompt: the contract's prompt length (3..2048 characters, as for scene prompts). */
export const STYLE_PROMPT_LENGTH = { min: 3, max: 2048 } as const;

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
