import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ParseIdPipe } from '@app/common';
import { STORAGE_TYPE_DEFINITIONS, STORAGE_TYPES, type StorageType } from '@app/storage';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { RequireScopes } from '../auth/require-scopes.decorator';
import { ApiEnvelope } from '../openapi/api-envelope.decorator';
import { ApiErrorResponse } from '../openapi/api-errors.decorator';
import { CreateStorageDto, UpdateStorageDto } from './dto/storage-request.dto';
import { StorageResponseDto, toStorageResponse } from './dto/storage-response.dto';
import { StoragesService } from './storages.service';

const ApiStorageNotFound = () => ApiErrorResponse(['STORAGE_NOT_FOUND'], 'No storage with this id in your account.');
const ApiNameTaken = () =>
  ApiErrorResponse(['STORAGE_NAME_TAKEN'], 'Your account already has a storage with this name.');
const ApiUnreachable = () =>
  ApiErrorResponse(['STORAGE_UNREACHABLE'], 'The store refused the parameters or could not be reached.');
const UNREACHABLE =
  'The parameters are checked against the store before they are saved: a missing bucket, refused credentials or an endpoint that cannot be reached answer 422 (`error_type` `storage`) with the reason.';

@ApiTags('Storage')
@ApiExtraModels(...STORAGE_TYPE_DEFINITIONS.map((type) => type.parameters))
@Controller('v1/storage')
@RequireScopes('storage')
export class StorageController {
  constructor(private readonly storages: StoragesService) {}

  @Get('storage-types')
  @ApiOperation({ summary: 'List the storage types' })
  @ApiEnvelope(null, {
    description: `The types. ${STORAGE_TYPE_DEFINITIONS.map((type) => `\`${type.name}\`: ${type.summary}`).join(' ')}`,
  })
  types(): StorageType[] {
    return [...STORAGE_TYPES];
  }

  @Get('storages')
  @ApiOperation({ summary: 'List your storages' })
  @ApiEnvelope(StorageResponseDto, { isArray: true })
  async list(@CurrentPrincipal() caller: Principal): Promise<StorageResponseDto[]> {
    return (await this.storages.list(caller)).map(toStorageResponse);
  }

  @Post('storages')
  @HttpCode(200)
  @ApiOperation({ summary: 'Connect a storage', description: UNREACHABLE })
  @ApiEnvelope(StorageResponseDto)
  @ApiNameTaken()
  @ApiUnreachable()
  async create(@Body() body: CreateStorageDto, @CurrentPrincipal() caller: Principal): Promise<StorageResponseDto> {
    return toStorageResponse(await this.storages.create(caller, body));
  }

  @Get('storages/:storage_id')
  @ApiOperation({ summary: 'Get a storage' })
  @ApiEnvelope(StorageResponseDto)
  @ApiStorageNotFound()
  async get(
    @Param('storage_id', new ParseIdPipe('storage_id')) id: number,
    @CurrentPrincipal() caller: Principal,
  ): Promise<StorageResponseDto> {
    return toStorageResponse(await this.storages.get(caller, id));
  }

  @Patch('storages/:storage_id')
  @ApiOperation({
    summary: 'Change a storage',
    description: `Changes name, type and/or parameters. Parameters merge into the current ones (omitted members stay, \`null\` removes one; a new \`access_key\` needs its \`secret_access_key\`, and switching between HMAC keys and \`service_account\` replaces the credentials); a new type needs the full parameters of that type. ${UNREACHABLE}`,
  })
  @ApiEnvelope(StorageResponseDto)
  @ApiStorageNotFound()
  @ApiNameTaken()
  @ApiUnreachable()
  async update(
    @Param('storage_id', new ParseIdPipe('storage_id')) id: number,
    @Body() body: UpdateStorageDto,
    @CurrentPrincipal() caller: Principal,
  ): Promise<StorageResponseDto> {
    return toStorageResponse(await this.storages.update(caller, id, body));
  }

  @Delete('storages/:storage_id')
  @ApiOperation({
    summary: 'Disconnect a storage',
    description: 'Forgets the connection; the bucket and its files stay.',
  })
  @ApiEnvelope(null)
  @ApiStorageNotFound()
  async remove(
    @Param('storage_id', new ParseIdPipe('storage_id')) id: number,
    @CurrentPrincipal() caller: Principal,
  ): Promise<null> {
    await this.storages.remove(caller, id);
    return null;
  }
}
