import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';

export const UPSCALE_MODELS = ['smart_enhance', 'smart_resize', 'digital_art', 'faces', 'photo'] as const;
export type UpscaleModel = (typeof UPSCALE_MODELS)[number];
export const DECOMPRESS_STRENGTHS = ['moderate', 'strong', 'auto'] as const;
export type DecompressStrength = (typeof DECOMPRESS_STRENGTHS)[number];

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
