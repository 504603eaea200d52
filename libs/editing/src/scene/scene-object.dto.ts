import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsIn, IsOptional } from 'class-validator';
import { IsLocation, IsNumberIn, IsSideLengths, LOCATION_MAX_LENGTH, PADDING_RULE } from '../dto/edit-values';

/** The object variants of the scene request (scene-request.dto.ts), chosen by `placement_type`. */

/** An image location of the scene request: the contract's URI schema length, 1..4096. */
export const URL_PROPERTY = { minLength: 1, maxLength: LOCATION_MAX_LENGTH } as const;

export class PositionDto {
  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: 0.5, description: '0 is the left edge, 1 the right edge.' })
  @IsOptional()
  @IsNumberIn(0, 1)
  x?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 1, default: 0.5, description: '0 is the bottom edge, 1 the top edge.' })
  @IsOptional()
  @IsNumberIn(0, 1)
  y?: number;
}

export class AbsoluteObjectDto {
  @ApiProperty({
    ...URL_PROPERTY,
    description:
      'The product image: an http(s) URL or `storage://<storage_name>/<path>`. An image with a transparent background is placed as it is; otherwise the object is cut out first.',
    example: 'https://example.com/images/bottle.png',
  })
  @IsLocation(LOCATION_MAX_LENGTH, 'refuse')
  image_url: string;

  @ApiPropertyOptional({ enum: ['absolute'], default: 'absolute' })
  @IsOptional()
  @IsIn(['absolute'])
  placement_type?: 'absolute';

  @ApiPropertyOptional({ minimum: 0, maximum: 360, default: 0, description: 'Clockwise, in degrees.' })
  @IsOptional()
  @IsNumberIn(0, 360)
  rotation_degree?: number;

  @ApiPropertyOptional({
    minimum: 0.01,
    maximum: 1,
    default: 1,
    description:
      'The object size relative to the scene: 1 fits the object to the scene edges, 0.5 to half of them. The integers 0 and 1 are also accepted (0 as 0.01).',
  })
  @IsOptional()
  @Allow()
  scale?: number;

  @ApiPropertyOptional({ type: () => PositionDto, description: 'Where the object centre goes. Default: the centre.' })
  @IsOptional()
  @Allow()
  position?: PositionDto;
}

export class OriginalObjectDto {
  @ApiProperty({ ...URL_PROPERTY, description: 'The product image, placed as it is framed in its own image.' })
  @IsLocation(LOCATION_MAX_LENGTH, 'refuse')
  image_url: string;

  @ApiProperty({ enum: ['original'] })
  @IsIn(['original'])
  placement_type: 'original';
}

export class PaddingObjectDto {
  @ApiProperty({ ...URL_PROPERTY, description: 'The product image.' })
  @IsLocation(LOCATION_MAX_LENGTH, 'refuse')
  image_url: string;

  @ApiProperty({ enum: ['padding'] })
  @IsIn(['padding'])
  placement_type: 'padding';

  @ApiProperty({
    description: `Space around the object, as for the edit's padding: ${PADDING_RULE}. Percentages are of the scene's sides; each value at most half of its side.`,
    example: '10%',
  })
  @IsSideLengths(true)
  padding: string;
}
