import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Allow } from 'class-validator';
import { PIPELINE_PHASES } from '@app/image-pipeline';
import { INPUT_MAX_LENGTH, LOCATION_MAX_LENGTH } from './edit-values';
import { OperationsDto } from './operations.dto';
import { OutputOptionsDto } from './output.dto';

/**
 * The body of `POST /v1/image/edit` (and of the asynchronous edit), for `@Body()` and the OpenAPI document.
 *
 * Its members are only `@Allow()`ed, on purpose. The global RequestValidationPipe validates this class before the
 * handler runs and throws at its first failure; rules placed here would answer a request with one 422 and, once
 * fixed, the rest (nested objects, unions, combinations such as style_transfer with background removal) with
 * another. The handler passes the body to `parseEditRequest`, which checks everything and reports every problem
 * in one 422. The pipe still refuses unknown top-level members by itself (whitelisting is its own option); a
 * controller that wants those in the same 422 declares `@Body() body: unknown` with `@ApiBody({ type: EditRequestDto })`.
 */
@ApiExtraModels(OutputOptionsDto)
export class EditRequestDto {
  @ApiProperty({
    minLength: 1,
    maxLength: INPUT_MAX_LENGTH,
    description:
      'The image: an http(s) URL or `storage://<storage_name>/<path>` (a file, not a folder). Input types: BMP, GIF, JPEG, PNG, TIFF, WEBP, AVIF, HEIC.',
    example: 'https://example.com/images/shoe.jpg',
  })
  @Allow()
  input: string;

  @ApiPropertyOptional({
    type: () => OperationsDto,
    // the phases between decoding and encoding, as the pipeline runs them (pipeline-step.ts)
    description: `What to do, applied in this order: ${PIPELINE_PHASES.slice(1, -1).join(', ')}.`,
  })
  @Allow()
  operations?: OperationsDto;

  @ApiPropertyOptional({
    oneOf: [
      {
        type: 'string',
        minLength: 1,
        maxLength: LOCATION_MAX_LENGTH,
        description: 'The destination alone (`storage://...` or an http(s) URL).',
      },
      { $ref: getSchemaPath(OutputOptionsDto) },
    ],
    description:
      'Where and how the result is written. Absent: the result goes to the temporary bucket for 24 hours and `tmp_url` is filled.',
    example: { destination: 'storage://catalogue/edited/', format: 'webp' },
  })
  @Allow()
  output?: string | OutputOptionsDto;
}
