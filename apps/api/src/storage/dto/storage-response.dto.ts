import { ApiProperty } from '@nestjs/swagger';
import type { StorageEntity } from '@app/database';
import { STORAGE_TYPES, type PublicParameters, type StorageType } from '@app/storage';

export class StorageResponseDto {
  @ApiProperty()
  id: number;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: STORAGE_TYPES })
  type: StorageType;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      '`bucket`, `path`, `endpoint` and `region` when set, and `credentials.access_key` (or `credentials.client_email`); `base_url` for a web folder. Never a secret.',
    example: { bucket: 'catalogue-images', path: 'products', credentials: { access_key: 'AKIAIOSFODNN7EXAMPLE' } },
  })
  parameters: PublicParameters;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

/** The one mapper from entity to response: `parameters` holds only what may be shown. */
export function toStorageResponse(storage: StorageEntity): StorageResponseDto {
  return {
    id: storage.id,
    name: storage.name,
    type: storage.type as StorageType,
    parameters: storage.parameters as unknown as PublicParameters,
    created_at: storage.createdAt.toISOString(),
  };
}
