import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ParseIdPipe } from '@app/common';
import { ApiEnvelope } from '../openapi/api-envelope.decorator';
import { ApiErrorResponse } from '../openapi/api-errors.decorator';
import { CreateKeyDto, ListKeysQueryDto, toCreateKeyInput } from './dto/create-key.dto';
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
