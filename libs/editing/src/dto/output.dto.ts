import { CMYK_PROFILE_NAMES, type CmykProfileName } from '@app/image-pipeline';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Allow, IsIn, IsOptional } from 'class-validator';
import { IsIntegerIn, IsLocation, LOCATION_MAX_LENGTH } from './edit-values';
import {
  AvifOptionsDto,
  JpegOptionsDto,
  OUTPUT_FORMATS,
  PngOptionsDto,
  TiffOptionsDto,
  WebpOptionsDto,
  type FormatOptionsDto,
  type OutputFormat,
} from './format-options.dto';

export const COLOR_SPACES = ['RGB', 'CMYK'] as const;
export type ColorSpaceName = (typeof COLOR_SPACES)[number];
/** The shipped profiles are listed once, in libs/image-pipeline/src/colour/cmyk-profiles.ts. */
export type CmykProfile = CmykProfileName;
export const DEFAULT_CMYK_PROFILE: CmykProfile = 'ISO_Coated';

/**
 * Resolution written into the file: 1..10000 dpi. Print work tops out around 2400-4800 dpi; 10000 leaves room
 * for scanners and stays far inside every format's field (JPEG's JFIF density is a 16-bit number).
 */
export const DPI_RANGE = { min: 1, max: 10_000 } as const;

export class CmykColorSpaceDto {
  @ApiProperty({ enum: ['CMYK'] })
  @IsIn(['CMYK'])
  type: 'CMYK';

  @ApiPropertyOptional({
    enum: CMYK_PROFILE_NAMES,
    default: DEFAULT_CMYK_PROFILE,
    description:
      'Profile of the conversion, with its total area coverage: `ISO_Coated` 330%, `ISO_Uncoated` 300%, `USWeb_Coated` 300%, `USWeb_Uncoated` 260%.',
  })
  @IsOptional()
  @IsIn(CMYK_PROFILE_NAMES as CmykProfileName[])
  color_profile?: CmykProfile;
}

/** `{"type": "RGB"}`: the same as `"RGB"`, for clients that write every colour space as an object. */
export class RgbColorSpaceDto {
  @ApiProperty({ enum: ['RGB'] })
  @IsIn(['RGB'])
  type: 'RGB';
}

@ApiExtraModels(CmykColorSpaceDto, RgbColorSpaceDto)
export class OutputMetadataDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: DPI_RANGE.min,
    maximum: DPI_RANGE.max,
    description: 'Resolution written into the file, in dots per inch.',
    example: 300,
  })
  @IsOptional()
  @IsIntegerIn(DPI_RANGE.min, DPI_RANGE.max)
  dpi?: number;

  @ApiPropertyOptional({
    oneOf: [
      { type: 'string', enum: [...COLOR_SPACES] },
      { $ref: getSchemaPath(RgbColorSpaceDto) },
      { $ref: getSchemaPath(CmykColorSpaceDto) },
    ],
    description:
      'Output colour space. `CMYK` (jpeg output only) converts with `ISO_Coated` unless a profile is named. `{"type": "RGB"}` is `RGB`. When absent, RGB input leaves as RGB with an sRGB profile; CMYK and grey input keep their colour space and profile.',
    example: { type: 'CMYK', color_profile: 'USWeb_Coated' },
  })
  // A union: resolved by its discriminator and validated in output.resolver.ts.
  @Allow()
  color_space?: ColorSpaceName | RgbColorSpaceDto | CmykColorSpaceDto;
}

/** The schema of `output.format` (edit and scene): a format name, or an options object chosen by `type`. */
export function formatSchemas() {
  return [
    { type: 'string', enum: [...OUTPUT_FORMATS] },
    { $ref: getSchemaPath(JpegOptionsDto) },
    { $ref: getSchemaPath(PngOptionsDto) },
    { $ref: getSchemaPath(WebpOptionsDto) },
    { $ref: getSchemaPath(AvifOptionsDto) },
    { $ref: getSchemaPath(TiffOptionsDto) },
  ];
}

@ApiExtraModels(JpegOptionsDto, PngOptionsDto, WebpOptionsDto, AvifOptionsDto, TiffOptionsDto)
export class OutputOptionsDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: LOCATION_MAX_LENGTH,
    description:
      'Where the result is written: `storage://<storage_name>/<path>` or an http(s) URL. A path ending in `/` is a folder: the file is named after the input with the new extension. Absent: the temporary bucket (`tmp_url`, kept 24 hours).',
    example: 'storage://catalogue/edited/',
  })
  @IsOptional()
  @IsLocation(LOCATION_MAX_LENGTH, 'allow')
  destination?: string;

  @ApiPropertyOptional({
    oneOf: formatSchemas(),
    description:
      'A format name (its defaults apply) or an options object chosen by `type`. jpeg: quality 85, progressive; png: optimal compression; webp: lossy 75; avif: lossy 50; tiff: lossless (LZW).',
    example: { type: 'jpeg', quality: 90, progressive: false },
  })
  // A union: resolved by its discriminator and validated in output.resolver.ts.
  @Allow()
  format?: OutputFormat | FormatOptionsDto;

  @ApiPropertyOptional({ type: () => OutputMetadataDto })
  @Allow()
  metadata?: OutputMetadataDto;
}
