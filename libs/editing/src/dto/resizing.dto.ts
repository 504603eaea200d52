import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Allow, IsIn, IsOptional } from 'class-validator';
import {
  IsPercentUpTo,
  IsSideLengths,
  IsSize,
  MAX_DIMENSION_PX,
  MAX_SIDE_PERCENT,
  MAX_SIZE_PERCENT,
  SIDES_RULE,
} from './edit-values';

export const FIT_TYPES = ['crop', 'bounds', 'cover', 'canvas', 'outpaint'] as const;
export type FitType = (typeof FIT_TYPES)[number];
export const CROP_POSITIONS = ['center', 'smart'] as const;
export type CropPosition = (typeof CROP_POSITIONS)[number];
/** A crop fit without `crop` crops at the centre. */
export const DEFAULT_CROP: CropPosition = 'center';
export const BOX_FIT_TYPES = ['bounds', 'cover', 'canvas'] as const;
export type BoxFitType = (typeof BOX_FIT_TYPES)[number];

export class CropFitDto {
  @ApiPropertyOptional({ enum: ['crop'], description: 'May be left out: an object with `crop` is the crop fit.' })
  @IsOptional()
  @IsIn(['crop'])
  type?: 'crop';

  @ApiPropertyOptional({
    enum: CROP_POSITIONS,
    default: DEFAULT_CROP,
    description: '`center` (default) crops around the centre; `smart` centres on the detected main object.',
    example: 'smart',
  })
  @IsOptional()
  @IsIn(CROP_POSITIONS)
  crop?: CropPosition;
}

export class BoxFitDto {
  @ApiProperty({
    enum: BOX_FIT_TYPES,
    description:
      '`bounds` fits inside width x height, `cover` covers it, `canvas` places the image unchanged on a width x height canvas filled with the background colour.',
  })
  @IsIn(BOX_FIT_TYPES)
  type: BoxFitType;
}

export class OutpaintFitDto {
  @ApiProperty({ enum: ['outpaint'] })
  @IsIn(['outpaint'])
  type: 'outpaint';

  @ApiPropertyOptional({
    type: 'string',
    pattern: '^\\d{1,4}(\\.\\d{1,3})?%$',
    description: `Width of the transition band as a percentage of the input width or height, at most ${MAX_SIDE_PERCENT}%.`,
    example: '15%',
  })
  @IsOptional()
  @IsPercentUpTo(MAX_SIDE_PERCENT)
  feathering?: string;

  @ApiPropertyOptional({
    type: 'string',
    description: `Space generated on every side before the final resize: ${SIDES_RULE}. Each value at most 50% of the image side; values are added to each side in full (1000x1000 with "10% 5%" becomes 1200x1100).`,
    example: '10% 5%',
  })
  @IsOptional()
  @IsSideLengths(false)
  outpaint_by?: string;
}

const SIZE_SCHEMA = {
  oneOf: [
    { type: 'integer', minimum: 1, maximum: MAX_DIMENSION_PX, description: 'Pixels.' },
    { type: 'string', enum: ['auto'], description: 'Follows the other side, keeping the aspect ratio.' },
    {
      type: 'string',
      pattern: '^\\d{1,4}(\\.\\d{1,3})?%$',
      description: `Percentage of the input side, above 0% and at most ${MAX_SIZE_PERCENT}%.`,
    },
  ],
  description: `Pixels (1 to ${MAX_DIMENSION_PX}), "auto", or a percentage ("200%", at most ${MAX_SIZE_PERCENT}%). When one side is a percentage the other must be the same percentage, "auto" or absent. Both "auto" only with fit outpaint.`,
};

@ApiExtraModels(CropFitDto, BoxFitDto, OutpaintFitDto)
export class ResizingDto {
  @ApiPropertyOptional({ ...SIZE_SCHEMA, example: 1200 })
  @IsOptional()
  @IsSize()
  width?: number | string;

  @ApiPropertyOptional({ ...SIZE_SCHEMA, example: 'auto' })
  @IsOptional()
  @IsSize()
  height?: number | string;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: [...FIT_TYPES] },
      { $ref: getSchemaPath(CropFitDto) },
      { $ref: getSchemaPath(BoxFitDto) },
      { $ref: getSchemaPath(OutpaintFitDto) },
    ],
    default: 'crop',
    description:
      'How the image meets width x height. A name, or an object chosen by `type` (absent `type` means crop). `crop` alone means `{"type": "crop", "crop": "center"}`.',
    example: { type: 'outpaint', feathering: '15%', outpaint_by: '10% 5%' },
  })
  // A union: resolved by its discriminator and validated in operations.resolver.ts.
  @Allow()
  fit?: FitType | CropFitDto | BoxFitDto | OutpaintFitDto;
}
