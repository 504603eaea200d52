import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString, Matches } from 'class-validator';
import {
  STORAGE_NAME_PATTERN,
  STORAGE_NAME_RULE,
  STORAGE_TYPE_DEFINITIONS,
  STORAGE_TYPES,
  type StorageType,
} from '@app/storage';

const PARAMETERS_SCHEMA = {
  description: `Parameters of the type, each type's own schema: ${STORAGE_TYPE_DEFINITIONS.map(
    (type) => `\`${type.name}\` ${type.parameters.name}`,
  ).join(', ')}.`,
  oneOf: STORAGE_TYPE_DEFINITIONS.map((type) => ({ $ref: getSchemaPath(type.parameters) })),
};

export class CreateStorageDto {
  @ApiProperty({ description: 'Name used in `storage://<name>/...`; unique in your account.', example: 'catalogue' })
  @IsString()
  @Matches(STORAGE_NAME_PATTERN, { message: STORAGE_NAME_RULE })
  name: string;

  @ApiProperty({ enum: STORAGE_TYPES })
  @IsIn(STORAGE_TYPES)
  type: StorageType;

  @ApiProperty(PARAMETERS_SCHEMA)
  @IsObject()
  parameters: Record<string, unknown>;
}

export class UpdateStorageDto {
  @ApiPropertyOptional({ description: 'New name. `null` is absent (the name stays), as for `type` and `parameters`.' })
  @IsOptional()
  @IsString()
  @Matches(STORAGE_NAME_PATTERN, { message: STORAGE_NAME_RULE })
  name?: string | null;

  @ApiPropertyOptional({ enum: STORAGE_TYPES, description: 'New type; then `parameters` must be complete.' })
  @IsOptional()
  @IsIn(STORAGE_TYPES)
  type?: StorageType | null;

  @ApiPropertyOptional({
    ...PARAMETERS_SCHEMA,
    description:
      'Merged into the current parameters: omitted members stay, `null` removes an optional member. With a new `type`, the complete parameters of that type.',
  })
  @IsOptional()
  @IsObject()
  parameters?: Record<string, unknown> | null;
}
