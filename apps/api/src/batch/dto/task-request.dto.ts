import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import {
  EditRequestDto,
  LOCATION_MAX_LENGTH,
  OperationsDto,
  OutputOptionsDto,
  WEBHOOK_URL_MAX_LENGTH,
} from '@app/editing';

const WEBHOOK_DOC = {
  type: String,
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  description:
    'Called once when the task ends: a POST of `{"data": <task>}`, signed with your account\'s webhook secret (`webhook-id`, `webhook-timestamp`, `webhook-signature`; see /v1/webhooks/secret). Retried with backoff until it answers 2xx; a redirect is not followed and fails the delivery. The same address rules as inputs apply.',
  example: 'https://hooks.example.com/atelier',
};

export class FolderInputDto {
  @ApiProperty({ description: 'A storage folder: `storage://<name>/<folder>/`.', example: 'storage://catalogue/raw/' })
  source: string;

  @ApiPropertyOptional({ type: Boolean, default: false, description: 'Include sub-folders (their paths are kept).' })
  recursive?: boolean;
}

/** `POST /v1/image/edit/batch`, for the OpenAPI document; parseBatchRequest validates the body. */
@ApiExtraModels(FolderInputDto, OutputOptionsDto)
export class BatchRequestDto {
  @ApiProperty({
    description:
      'What to edit: a storage folder (`storage://<name>/<folder>/`, its images by extension), one file or URL, a list of files and URLs, or `{source, recursive}`.',
    oneOf: [
      { type: 'string', minLength: 1, maxLength: LOCATION_MAX_LENGTH },
      { type: 'array', minItems: 1, items: { type: 'string', minLength: 1, maxLength: LOCATION_MAX_LENGTH } },
      { $ref: getSchemaPath(FolderInputDto) },
    ],
    example: { source: 'storage://catalogue/raw/', recursive: true },
  })
  input: string | string[] | FolderInputDto;

  @ApiPropertyOptional({ type: () => OperationsDto, description: 'As in POST /v1/image/edit, for every image.' })
  operations?: OperationsDto;

  @ApiPropertyOptional({
    oneOf: [{ type: 'string', maxLength: LOCATION_MAX_LENGTH }, { $ref: getSchemaPath(OutputOptionsDto) }],
    description:
      "A storage folder (ending in `/`) or `{destination, format, metadata}`. Each result takes its input's name with the new extension. Default format: jpeg. Without a destination the results go to the temporary bucket.",
    example: { destination: 'storage://catalogue/edited/', format: 'webp' },
  })
  output?: string | OutputOptionsDto;

  @ApiPropertyOptional(WEBHOOK_DOC)
  webhook_url?: string;
}

/** `POST /v1/image/edit/async`: the edit request plus `webhook_url`. */
export class AsyncEditRequestDto extends EditRequestDto {
  @ApiPropertyOptional(WEBHOOK_DOC)
  webhook_url?: string;
}
