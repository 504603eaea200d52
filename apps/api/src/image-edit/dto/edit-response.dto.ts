import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { EditNotice, ImageInfo, OutputImageInfo } from '@app/editing';

export class ImageInfoDto implements ImageInfo {
  @ApiProperty({
    example: 'jpg',
    description: 'File extension: jpg, png, webp, avif, tiff (inputs also gif, bmp, heic).',
  })
  ext: string;

  @ApiProperty({ example: 0.7864, description: 'Megapixels (width x height / 1,000,000).' })
  mps: number;

  @ApiProperty({ example: 'image/jpeg' })
  mime: string;

  @ApiProperty({ example: 'jpeg', description: 'Format read from the bytes (input) or written (output).' })
  format: string;

  @ApiProperty({ example: 1024 })
  width: number;

  @ApiProperty({ example: 768 })
  height: number;
}

export class OutputImageInfoDto extends ImageInfoDto implements OutputImageInfo {
  @ApiProperty({
    description:
      'Temporary URL of the result (kept for TEMP_TTL_SECONDS, 24 h by default); empty when `output` names a destination.',
    example: 'http://localhost:3000/tmp/3q2-7wQ8yXb0uS1dF4gH6jK9lZ5xC2vB8nM1aP0oI7e.jpg',
  })
  tmp_url: string;

  @ApiPropertyOptional({ description: 'Key of the result in its bucket (the storage prefix included).' })
  object_key?: string;

  @ApiPropertyOptional({ description: 'Bucket of the result.' })
  object_bucket?: string;

  @ApiPropertyOptional({ description: 'Native URI of the result, e.g. `s3://bucket/key`.' })
  object_uri?: string;

  @ApiPropertyOptional({ description: 'The result as a reference to your storage: `storage://<name>/<path>`.' })
  service_storage_uri?: string;

  @ApiPropertyOptional({
    description:
      'Compatibility alias of `service_storage_uri`, for existing clients of the API family: always the same value, present when it is.',
    example: 'storage://catalogue/out/shoe.jpg',
  })
  claid_storage_uri?: string;
}

/** Something a client should know about an edit that succeeded (an extension of the contract: docs/api-contract.md). */
export class EditNoticeDto implements EditNotice {
  @ApiProperty({
    enum: ['NO_FACE_FOUND', 'PROMPT_NOT_DRAWN'],
    example: 'NO_FACE_FOUND',
    description:
      'Stable code. `NO_FACE_FOUND`: `privacy.identity_crop` was asked for and no face was found, so the image was not cut. `PROMPT_NOT_DRAWN` (scenes): the backend drew the scene without some words of the prompt, which the message lists (the local backend draws colours, surfaces, finishes and light only).',
  })
  code: EditNotice['code'];

  @ApiProperty({ example: 'operations.privacy.identity_crop', description: 'The request field the notice is about.' })
  field: string;

  @ApiProperty({ example: 'No face was found in the image: identity_crop left it uncut.' })
  message: string;
}

export class EditResponseDto {
  @ApiProperty({ type: ImageInfoDto })
  input: ImageInfoDto;

  @ApiProperty({ type: OutputImageInfoDto })
  output: OutputImageInfoDto;

  @ApiPropertyOptional({
    type: [EditNoticeDto],
    description:
      'Present only when an operation asked for left the image as it was (an extension): for example `NO_FACE_FOUND` when `privacy.identity_crop` found no face. Absent when every operation applied.',
  })
  notices?: EditNoticeDto[];
}
