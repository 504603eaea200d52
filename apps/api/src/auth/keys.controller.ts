import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ParseIdPipe, ServiceException } from '@app/common';
import { ApiEnvelope } from '../openapi/api-envelope.decorator';
import { ApiErrorResponse } from '../openapi/api-errors.decorator';
import { CreateKeyDto, ListKeysQueryDto, toCreateKeyInput, UpdateKeyDto } from './dto/create-key.dto';
import { CreatedKeyResponseDto, KeyResponseDto, toKeyResponse } from './dto/key-response.dto';
import { KeysService } from './keys.service';
import { CurrentPrincipal, type Principal } from './principal';
import { RequireScopes } from './require-scopes.decorator';

@ApiTags('API keys')
@Controller('v1/keys')
@RequireScopes('admin')
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create an API key',
    description: 'The response holds the secret key once; only its hash is stored.',
  })
  @ApiEnvelope(CreatedKeyResponseDto)
  @ApiErrorResponse(
    ['AUTH_FORBIDDEN', 'KEY_LIMITS_EXCEEDED'],
    'The key lacks the scope (admin), or asks for more than the creating key has.',
  )
  async create(@Body() body: CreateKeyDto, @CurrentPrincipal() caller: Principal): Promise<CreatedKeyResponseDto> {
    const created = await this.keys.create(toCreateKeyInput(body), caller);
    return { ...toKeyResponse(created.entity, created.account), key: created.secret };
  }

  @Get()
  @ApiOperation({ summary: 'List API keys', description: 'Keys of your account, or of a named account for operators.' })
  @ApiEnvelope(KeyResponseDto, { isArray: true })
  async list(@Query() query: ListKeysQueryDto, @CurrentPrincipal() caller: Principal): Promise<KeyResponseDto[]> {
    const keys = await this.keys.list(caller, query.account);
    return keys.map(({ entity, account }) => toKeyResponse(entity, account));
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Change an API key',
    description:
      'Rename a key or change its scopes (they replace the old ones); operators also change its quota and rate limits. Absent members stay as they are. The key itself is never shown again.',
  })
  @ApiEnvelope(KeyResponseDto)
  @ApiErrorResponse(['KEY_NOT_FOUND'], 'No such key in your reach.')
  @ApiErrorResponse(['KEY_REVOKED'], 'The key is revoked: revocation is final.')
  @ApiErrorResponse(
    ['AUTH_FORBIDDEN', 'KEY_LIMITS_EXCEEDED'],
    "The key lacks the scope (admin), or only an operator may change a key's quota or rate limits.",
  )
  async update(
    @Param('id', new ParseIdPipe('id')) id: number,
    @Body() body: UpdateKeyDto,
    @CurrentPrincipal() caller: Principal,
  ): Promise<KeyResponseDto> {
    // `null` removes a member that can be removed (the quota, a rate limit); a name and scopes cannot: absent.
    const name = body.name ?? undefined;
    const scopes = body.scopes ?? undefined;
    if (name === undefined && scopes === undefined && body.quota === undefined && body.rate_limit === undefined) {
      throw ServiceException.validation({ body: ['give at least one of name, scopes, quota, rate_limit'] });
    }
    const limits = body.rate_limit;
    const { entity, account } = await this.keys.update(
      id,
      {
        name,
        scopes,
        quota: body.quota,
        rateLimit:
          limits === null
            ? { perSecond: null, perMinute: null }
            : limits && { perSecond: limits.per_second, perMinute: limits.per_minute },
      },
      caller,
    );
    return toKeyResponse(entity, account);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Revoke an API key', description: 'The key stops working at once, in every API instance.' })
  @ApiEnvelope(KeyResponseDto)
  @ApiErrorResponse(['KEY_NOT_FOUND'], 'No such key in your reach.')
  async revoke(
    @Param('id', new ParseIdPipe('id')) id: number,
    @CurrentPrincipal() caller: Principal,
  ): Promise<KeyResponseDto> {
    const { entity, account } = await this.keys.revoke(id, caller);
    return toKeyResponse(entity, account);
  }
}
