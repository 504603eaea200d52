import { ApiExtraModels, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Allow, IsBoolean, IsOptional } from 'class-validator';
import { IsIntegerIn } from '../../dto/edit-values';

export class HdrDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 100, default: 100, description: '0 is no change.' })
  @IsOptional()
  @IsIntegerIn(0, 100)
  intensity?: number;

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    description: 'Stitches the left and right edges (360° panoramas).',
  })
  @IsOptional()
  @IsBoolean()
  stitching?: boolean;
}

const SIGNED_ADJUSTMENT = { type: 'integer', minimum: -100, maximum: 100, description: '0 is no change.' } as const;

@ApiExtraModels(HdrDto)
export class AdjustmentsDto {
  @ApiPropertyOptional({
    oneOf: [{ type: 'integer', minimum: 0, maximum: 100 }, { $ref: getSchemaPath(HdrDto) }],
    description:
      'Local tone mapping: an intensity 0..100 (100 recommended), or `{"intensity", "stitching"}`. `60` means `{"intensity": 60, "stitching": false}`.',
    example: 100,
  })
  // A union: resolved (integer or object) and validated in operations.resolver.ts.
  @Allow()
  hdr?: number | HdrDto;

  @ApiPropertyOptional(SIGNED_ADJUSTMENT)
  @IsOptional()
  @IsIntegerIn(-100, 100)
  exposure?: number;

  @ApiPropertyOptional(SIGNED_ADJUSTMENT)
  @IsOptional()
  @IsIntegerIn(-100, 100)
  saturation?: number;

  @ApiPropertyOptional(SIGNED_ADJUSTMENT)
  @IsOptional()
  @IsIntegerIn(-100, 100)
  contrast?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 100, description: '0 is no change.' })
  @IsOptional()
  @IsIntegerIn(0, 100)
  sharpness?: number;
}
