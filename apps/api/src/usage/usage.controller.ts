import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ParseIdPipe } from '@app/common';
import { SCOPES, type ApiKeyEntity, type Scope } from '@app/database';
import { TaskService } from '@app/editing';
import { KeysService } from '../auth/keys.service';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { RequireScopes, Uncounted } from '../auth/require-scopes.decorator';
import { RecentFailureDto } from '../batch/dto/task-list.dto';
import { ApiEnvelope } from '../openapi/api-envelope.decorator';
import { ApiErrorResponse } from '../openapi/api-errors.decorator';
import { RateLimitStore } from '../rate-limit/rate-limit.store';
import { rateLimitState } from '../rate-limit/rate-limiter';

/** How many of the account's failed task items GET /v1/usage lists. */
const RECENT_ERRORS = 20;

class UsageKeyDto {
  @ApiProperty({ nullable: true, type: Number, description: 'Null for the admin key given in configuration.' })
  id: number | null;

  @ApiProperty()
  name: string;

  @ApiProperty({ description: 'Start of the key (empty for the key given in configuration).' })
  prefix: string;

  @ApiProperty({ enum: SCOPES, isArray: true })
  scopes: Scope[];
}

class BucketUsageDto {
  @ApiProperty({ description: 'Requests the window admits.' })
  limit: number;

  @ApiProperty({ description: 'Requests it would still admit now.' })
  remaining: number;

  @ApiProperty({ description: 'Seconds until it is full again.' })
  reset_seconds: number;
}

class RateLimitUsageDto {
  @ApiProperty({ type: BucketUsageDto })
  per_second: BucketUsageDto;

  @ApiProperty({ type: BucketUsageDto })
  per_minute: BucketUsageDto;
}

export class UsageDto {
  @ApiProperty({ type: UsageKeyDto })
  key: UsageKeyDto;

  @ApiProperty({ description: 'Calls counted against the quota so far.' })
  calls_used: number;

  @ApiPropertyOptional({ nullable: true, type: Number, description: 'Calls allowed in all; null: unlimited.' })
  quota: number | null;

  @ApiPropertyOptional({ nullable: true, type: Number, description: 'Calls left; null: unlimited.' })
  calls_left: number | null;

  @ApiProperty({ type: RateLimitUsageDto })
  rate_limit: RateLimitUsageDto;

  @ApiProperty({
    type: [RecentFailureDto],
    description:
      "The last failed task items, newest first: of the key's own tasks, or of the whole account for an admin key. " +
      'Inputs as in logs: query strings and token-like path segments replaced by `[redacted]`.',
  })
  recent_errors: RecentFailureDto[];
}

/** What a key has used and has left; reading it is not counted as a call. */
@ApiTags('Usage')
@Controller('v1')
export class UsageController {
  constructor(
    private readonly keys: KeysService,
    private readonly store: RateLimitStore,
    private readonly tasks: TaskService,
  ) {}

  @Get('usage')
  @RequireScopes('image_editing', 'image_generation', 'storage')
  @Uncounted()
  @ApiOperation({
    summary: "Your key's usage",
    description:
      "Calls used and left, the rate limit's state, and your recent task errors (an admin key: the account's). " +
      'Not counted as a call.',
  })
  @ApiEnvelope(UsageDto)
  async own(@CurrentPrincipal() caller: Principal): Promise<UsageDto> {
    const key = caller.keyId === null ? undefined : (await this.keys.get(caller.keyId, caller)).entity;
    return this.usage(caller.accountId, key, caller);
  }

  @Get('keys/:id/usage')
  @RequireScopes('admin')
  @Uncounted()
  @ApiOperation({
    summary: "A key's usage",
    description: 'As GET /v1/usage, for a key of your account (any, for operators).',
  })
  @ApiEnvelope(UsageDto)
  @ApiErrorResponse(['KEY_NOT_FOUND'], 'No such key in your reach.')
  async ofKey(
    @Param('id', new ParseIdPipe('id')) id: number,
    @CurrentPrincipal() caller: Principal,
  ): Promise<UsageDto> {
    const { entity } = await this.keys.get(id, caller);
    return this.usage(entity.accountId, entity, caller);
  }

  /** `key` undefined: the admin key given in configuration (no quota, the default rate limits). */
  private async usage(accountId: number, key: ApiKeyEntity | undefined, caller: Principal): Promise<UsageDto> {
    const limits = key
      ? {
          perSecond: key.rateLimitPerSecond ?? caller.rateLimit.perSecond,
          perMinute: key.rateLimitPerMinute ?? caller.rateLimit.perMinute,
        }
      : caller.rateLimit;
    const quota = key?.quota ?? null;
    const callsUsed = key?.callsUsed ?? 0;
    const [rateLimit, recent] = await Promise.all([
      rateLimitState(this.store, key?.id ?? null, limits),
      this.tasks.recentFailures(accountId, RECENT_ERRORS, ownFailuresOnly(key)),
    ]);
    return {
      key: key
        ? { id: key.id, name: key.name, prefix: key.prefix, scopes: key.scopes }
        : { id: null, name: 'ADMIN_API_KEY', prefix: '', scopes: ['admin'] },
      calls_used: callsUsed,
      quota,
      calls_left: quota === null ? null : Math.max(0, quota - callsUsed),
      rate_limit: rateLimit,
      recent_errors: recent,
    };
  }
}

/**
 * Whose failed inputs a key's usage shows: an admin key (and the one given in configuration) the account's,
 * any other key only those of the tasks it created, never another key's inputs.
 */
function ownFailuresOnly(key: ApiKeyEntity | undefined): number | undefined {
  return key && !key.scopes.includes('admin') ? key.id : undefined;
}
