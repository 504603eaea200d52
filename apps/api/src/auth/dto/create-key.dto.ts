import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { ACCOUNT_NAME_PATTERN, ACCOUNT_NAME_RULE, SCOPES, type Scope } from '@app/database';
import type { CreateKeyInput } from '../keys.service';

/** A key's name is a label: printable text (PostgreSQL refuses NUL in text; control characters garble logs and lists). */
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f]*$/;
const NAME_RULE = '$property must not contain control characters';

export class RateLimitOverrideDto {
  @ApiPropertyOptional({
    description:
      "Requests per second for this key. Unless an operator creates the key: at most the creating key's own limit (else 403, code 114, at `rate_limit.per_second`); absent: the creating key's setting.",
    minimum: 1,
    maximum: 1_000_000,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  per_second?: number;

  @ApiPropertyOptional({
    description:
      "Requests per minute for this key. Unless an operator creates the key: at most the creating key's own limit (else 403, code 114, at `rate_limit.per_minute`); absent: the creating key's setting.",
    minimum: 1,
    maximum: 60_000_000,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(60_000_000)
  per_minute?: number;
}

export class CreateKeyDto {
  @ApiProperty({ description: 'A label for the key.', minLength: 1, maxLength: 100, example: 'catalogue pipeline' })
  @IsString()
  @Length(1, 100)
  @Matches(NO_CONTROL_CHARACTERS, { message: NAME_RULE })
  name: string;

  @ApiProperty({ description: 'What the key may do; `admin` includes everything.', enum: SCOPES, isArray: true })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(SCOPES, { each: true })
  scopes: Scope[];

  @ApiPropertyOptional({
    description:
      "Calls the key may make in all; absent means unlimited. Operators (the `default` account's admin keys, `ADMIN_API_KEY`, the keys CLI) grant any quota. Any other creating key that has a quota must give the new key one, at most its own calls left, and those calls move to the new key: its `calls_used` grows by them (else 403, code 114, at `quota`).",
    minimum: 1,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(2_000_000_000)
  quota?: number;

  @ApiPropertyOptional({
    description:
      'Account (by name) the key belongs to; created when new. Only an admin key of the `default` account may name another account.',
    pattern: ACCOUNT_NAME_PATTERN.source,
    example: 'default',
  })
  @IsOptional()
  @IsString()
  @Matches(ACCOUNT_NAME_PATTERN, { message: ACCOUNT_NAME_RULE })
  account?: string;

  @ApiPropertyOptional({
    description:
      "Per-key override of the rate limits. A key that an account's own admin key creates also counts against the rate limits of the operator-made key above it (`grant_key_id`), so more keys do not mean more requests.",
    type: RateLimitOverrideDto,
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => RateLimitOverrideDto)
  rate_limit?: RateLimitOverrideDto;
}

/**
 * `PATCH /v1/keys/{id}`: what changes; absent members stay as they are. `quota: null` removes the quota. Only
 * operators change a key's quota and rate limits (an account's own admin key: name and scopes).
 */
export class UpdateKeyDto {
  @ApiPropertyOptional({
    description: 'A new label.',
    minLength: 1,
    maxLength: 100,
    example: 'catalogue pipeline (EU)',
  })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  @Matches(NO_CONTROL_CHARACTERS, { message: NAME_RULE })
  name?: string | null;

  @ApiPropertyOptional({
    description:
      'The scopes the key has from now on (replacing the old ones); `admin` includes everything. `null`, like a `null` name, is absent.',
    enum: SCOPES,
    isArray: true,
    example: ['image_editing', 'image_generation'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayUnique()
  @IsIn(SCOPES, { each: true })
  scopes?: Scope[] | null;

  @ApiPropertyOptional({
    description:
      'Calls the key may make in all (its calls used so far count); `null` removes the quota (in PATCH bodies `null` removes a member). Operators only.',
    nullable: true,
    type: 'integer',
    minimum: 0,
    maximum: 2_000_000_000,
    example: 50000,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(2_000_000_000)
  quota?: number | null;

  @ApiPropertyOptional({
    description:
      "Per-key rate limits. Operators only. `null` (or a `null` member) returns the key to the service's default.",
    type: RateLimitOverrideDto,
    nullable: true,
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => RateLimitOverrideDto)
  rate_limit?: RateLimitOverrideDto | null;
}

export class ListKeysQueryDto {
  @ApiPropertyOptional({ description: 'Only the keys of this account (operators only; default: your own account).' })
  @IsOptional()
  @IsString()
  @Matches(ACCOUNT_NAME_PATTERN, { message: ACCOUNT_NAME_RULE })
  account?: string;
}

/** The service's input for a validated request, shared by the HTTP API and the keys CLI. */
export function toCreateKeyInput(dto: CreateKeyDto): CreateKeyInput {
  return {
    name: dto.name,
    scopes: dto.scopes,
    quota: dto.quota,
    account: dto.account,
    rateLimit: { perSecond: dto.rate_limit?.per_second, perMinute: dto.rate_limit?.per_minute },
  };
}
