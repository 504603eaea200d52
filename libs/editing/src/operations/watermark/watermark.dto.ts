import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsObject, IsOptional, ValidateNested } from 'class-validator';
import {
  IsColour,
  IsIntegerIn,
  IsLocation,
  IsNumberIn,
  IsStringOfLength,
  LOCATION_MAX_LENGTH,
  MAX_DIMENSION_PX,
} from '../../dto/edit-values';

/** Where the mark sits: the middle, or against one edge or corner (`north` is the top edge). */
export const WATERMARK_POSITIONS = [
  'center',
  'north',
  'south',
  'east',
  'west',
  'north_east',
  'north_west',
  'south_east',
  'south_west',
] as const;
export type WatermarkPosition = (typeof WATERMARK_POSITIONS)[number];

/** The text's length and size limits (font size in pixels of the output). */
export const WATERMARK_TEXT_LENGTH = { min: 1, max: 200 } as const;
export const WATERMARK_FONT_SIZE = { min: 4, max: 1000 } as const;

export class WatermarkOffsetDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_DIMENSION_PX, default: 0 })
  @IsOptional()
  @IsIntegerIn(0, MAX_DIMENSION_PX)
  x?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_DIMENSION_PX, default: 0 })
  @IsOptional()
  @IsIntegerIn(0, MAX_DIMENSION_PX)
  y?: number;
}

/** `operations.watermark`: an image or a text, placed over the final pixels (watermark.operation.ts). */
export class WatermarkDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: LOCATION_MAX_LENGTH,
    description:
      'The mark: an image (PNG with alpha works best), as an http(s) URL or `storage://<storage_name>/<path>`. Give it or `text`.',
    example: 'https://example.com/brand/logo.png',
  })
  @IsOptional()
  @IsLocation(LOCATION_MAX_LENGTH, 'refuse')
  image?: string;

  @ApiPropertyOptional({
    minLength: WATERMARK_TEXT_LENGTH.min,
    maxLength: WATERMARK_TEXT_LENGTH.max,
    description: 'The mark: a line of text (sans-serif). Give it or `image`.',
    example: '© Atelier',
  })
  @IsOptional()
  @IsStringOfLength(WATERMARK_TEXT_LENGTH.min, WATERMARK_TEXT_LENGTH.max)
  text?: string;

  @ApiPropertyOptional({ default: '#ffffff', description: "The text's colour, `#rgb` or `#rrggbb` (text only)." })
  @IsOptional()
  @IsColour()
  color?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: WATERMARK_FONT_SIZE.min,
    maximum: WATERMARK_FONT_SIZE.max,
    description: "The text's size in pixels of the output (text only). Absent: the text is sized by `scale`.",
  })
  @IsOptional()
  @IsIntegerIn(WATERMARK_FONT_SIZE.min, WATERMARK_FONT_SIZE.max)
  font_size?: number;

  @ApiPropertyOptional({
    enum: WATERMARK_POSITIONS,
    default: 'south_east',
    description:
      'Where the mark sits: the middle, or against an edge or a corner (`north` is the top). Ignored with `tile`.',
  })
  @IsOptional()
  @IsIn(WATERMARK_POSITIONS)
  position?: WatermarkPosition;

  @ApiPropertyOptional({
    type: () => WatermarkOffsetDto,
    description:
      'Pixels between the mark and the edges it sits against (`x` from the left or right, `y` from the top or bottom).',
  })
  @IsOptional()
  @IsObject({ message: '$property must be an object {x, y}' })
  @ValidateNested()
  @Type(() => WatermarkOffsetDto)
  offset?: WatermarkOffsetDto;

  @ApiPropertyOptional({
    type: Number,
    minimum: 0.01,
    maximum: 1,
    default: 0.2,
    description: "The mark's width as a share of the output's width (a text with `font_size` keeps its size).",
  })
  @IsOptional()
  @IsNumberIn(0.01, 1)
  scale?: number;

  @ApiPropertyOptional({ type: Number, minimum: 0, maximum: 1, default: 1, description: '0 is invisible, 1 opaque.' })
  @IsOptional()
  @IsNumberIn(0, 1)
  opacity?: number;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'Repeats the mark over the whole image (`position` and `offset` are then ignored).',
  })
  @IsOptional()
  @IsBoolean()
  tile?: boolean;
}
