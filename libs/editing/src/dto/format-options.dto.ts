import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Allow, IsBoolean, IsIn, IsOptional } from 'class-validator';
import { IsIntegerIn } from './edit-values';

export const OUTPUT_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'tiff'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export function isOutputFormat(value: unknown): value is OutputFormat {
  return typeof value === 'string' && (OUTPUT_FORMATS as readonly string[]).includes(value);
}
export const COMPRESSION_TYPES = ['lossy', 'lossless'] as const;
export type CompressionType = (typeof COMPRESSION_TYPES)[number];
export const PNG_COMPRESSIONS = ['fast', 'best', 'optimal'] as const;
export type PngCompression = (typeof PNG_COMPRESSIONS)[number];

/** Defaults of the contract's format options (docs/api-contract.md, "Image edit"). */
export const FORMAT_DEFAULTS = {
  jpegQuality: 85,
  jpegProgressive: true,
  pngCompression: 'optimal',
  webpQuality: 75,
  avifQuality: 50,
  tiffLossyQuality: 75,
} as const;

const QUALITY = { type: 'integer', minimum: 1, maximum: 100 } as const;

export class LossyCompressionDto {
  @ApiProperty({ enum: ['lossy'] })
  @IsIn(['lossy'])
  type: 'lossy';

  @ApiPropertyOptional({
    ...QUALITY,
    description: "Default: the format's own (webp 75, avif 50, tiff 75).",
  })
  @IsOptional()
  @IsIntegerIn(1, 100)
  quality?: number;
}

export class LosslessCompressionDto {
  @ApiProperty({ enum: ['lossless'] })
  @IsIn(['lossless'])
  type: 'lossless';
}

function compressionDoc(description: string) {
  return {
    oneOf: [
      { type: 'string', enum: [...COMPRESSION_TYPES] },
      { $ref: getSchemaPath(LossyCompressionDto) },
      { $ref: getSchemaPath(LosslessCompressionDto) },
    ],
    description,
  };
}

export class JpegOptionsDto {
  @ApiProperty({ enum: ['jpeg'] })
  @IsIn(['jpeg'])
  type: 'jpeg';

  @ApiPropertyOptional({ ...QUALITY, default: FORMAT_DEFAULTS.jpegQuality })
  @IsOptional()
  @IsIntegerIn(1, 100)
  quality?: number;

  @ApiPropertyOptional({ type: Boolean, default: FORMAT_DEFAULTS.jpegProgressive })
  @IsOptional()
  @IsBoolean()
  progressive?: boolean;
}

export class PngOptionsDto {
  @ApiProperty({ enum: ['png'] })
  @IsIn(['png'])
  type: 'png';

  @ApiPropertyOptional({
    enum: PNG_COMPRESSIONS,
    default: FORMAT_DEFAULTS.pngCompression,
    description: '`fast`: less compression and time; `best`: more compression and time.',
  })
  @IsOptional()
  @IsIn(PNG_COMPRESSIONS)
  compression?: PngCompression;
}

@ApiExtraModels(LossyCompressionDto, LosslessCompressionDto)
export class WebpOptionsDto {
  @ApiProperty({ enum: ['webp'] })
  @IsIn(['webp'])
  type: 'webp';

  @ApiPropertyOptional({
    ...compressionDoc(`Default: lossy with quality ${FORMAT_DEFAULTS.webpQuality}.`),
    example: { type: 'lossy', quality: 80 },
  })
  // A union: resolved by its discriminator and validated in output.resolver.ts.
  @Allow()
  compression?: CompressionType | LossyCompressionDto | LosslessCompressionDto;
}

@ApiExtraModels(LossyCompressionDto, LosslessCompressionDto)
export class AvifOptionsDto {
  @ApiProperty({ enum: ['avif'] })
  @IsIn(['avif'])
  type: 'avif';

  @ApiPropertyOptional({
    ...compressionDoc(`Default: lossy with quality ${FORMAT_DEFAULTS.avifQuality}.`),
    example: 'lossless',
  })
  // A union: resolved by its discriminator and validated in output.resolver.ts.
  @Allow()
  compression?: CompressionType | LossyCompressionDto | LosslessCompressionDto;
}

@ApiExtraModels(LossyCompressionDto, LosslessCompressionDto)
export class TiffOptionsDto {
  @ApiProperty({ enum: ['tiff'] })
  @IsIn(['tiff'])
  type: 'tiff';

  @ApiPropertyOptional({
    ...compressionDoc(
      `Default: \`lossless\` (LZW). \`lossy\` uses JPEG compression, quality ${FORMAT_DEFAULTS.tiffLossyQuality} unless given.`,
    ),
    example: { type: 'lossy', quality: 90 },
  })
  // A union: resolved by its discriminator and validated in output.resolver.ts.
  @Allow()
  compression?: CompressionType | LossyCompressionDto | LosslessCompressionDto;
}

export type FormatOptionsDto = JpegOptionsDto | PngOptionsDto | WebpOptionsDto | AvifOptionsDto | TiffOptionsDto;
export type CompressionDto = LossyCompressionDto | LosslessCompressionDto;
