import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SCOPES, type ApiKeyEntity, type Scope } from '@app/database';

export class RateLimitResponseDto {
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Override of requests per second, or null for the default.',
  })
  per_second: number | null;

  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Override of requests per minute, or null for the default.',
  })
  per_minute: number | null;
}

export class KeyResponseDto {
  @ApiProperty()
  id: number;

  @ApiProperty()
  name: string;

  @ApiProperty({ description: 'Start of the key, to tell keys apart. The key itself is never shown again.' })
  prefix: string;

  @ApiProperty()
  account: string;

  @ApiProperty({ enum: SCOPES, isArray: true })
  scopes: Scope[];

  @ApiProperty({ nullable: true, type: Number, description: 'Calls allowed in all, or null for unlimited.' })
  quota: number | null;

  @ApiProperty({
    description: 'Calls made, plus the calls handed to keys that this key created (taken from its quota).',
  })
  calls_used: number;

  @ApiProperty({ type: RateLimitResponseDto })
  rate_limit: RateLimitResponseDto;

  @ApiProperty({
    nullable: true,
    type: Number,
    description:
      "For a key that an account's own admin key created: the operator-made key whose rate limits it also counts against. Null for keys an operator made.",
  })
  grant_key_id: number | null;

  @ApiProperty()
  revoked: boolean;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  last_used_at: string | null;
}

export class CreatedKeyResponseDto extends KeyResponseDto {
  @ApiPropertyOptional({ description: 'The secret key. Shown in this response only; store it now.' })
  key: string;
}

export function toKeyResponse(entity: ApiKeyEntity, account: string): KeyResponseDto {
  return {
    id: entity.id,
    name: entity.name,
    prefix: entity.prefix,
    account,
    scopes: entity.scopes,
    quota: entity.quota,
    calls_used: entity.callsUsed,
    rate_limit: { per_second: entity.rateLimitPerSecond, per_minute: entity.rateLimitPerMinute },
    grant_key_id: entity.grantKeyId,
    revoked: entity.revoked,
    created_at: entity.createdAt.toISOString(),
    last_used_at: entity.lastUsedAt ? entity.lastUsedAt.toISOString() : null,
  };
}
