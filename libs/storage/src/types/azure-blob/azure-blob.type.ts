import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, IsUrl, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { checkRootPath, rootPath, URL_RULE } from '../bucket-parameters';
import type { StorageTypeDefinition } from '../storage-type';
import { AzureBlobDriver } from './azure-blob.driver';

export class AzureBlobCredentialsDto {
  @ApiPropertyOptional({
    description: 'The storage account’s access key (base64). Write-only: never returned, encrypted at rest.',
    writeOnly: true,
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9+/]+={0,2}$/, { message: 'account_key must be the account key as Azure shows it (base64)' })
  @MaxLength(512)
  account_key?: string;

  @ApiPropertyOptional({
    description:
      'A shared access signature (the query string, `sv=...&sig=...`) with read, write, list and delete rights on the container. Write-only.',
    writeOnly: true,
  })
  @IsOptional()
  @IsString()
  @Length(1, 2048)
  @Matches(/^\??[^\s#]*sig=/, { message: 'sas_token must be a shared access signature query string (with sig=)' })
  sas_token?: string;
}

export class AzureBlobParametersDto {
  @ApiProperty({ description: 'Storage account name.', example: 'catalogueimages' })
  @IsString()
  @Matches(/^[a-z0-9]{3,24}$/, { message: 'account must be 3 to 24 lower-case letters or digits' })
  account: string;

  @ApiProperty({ description: 'Container name.', example: 'products' })
  @IsString()
  @Matches(/^(?=.{3,63}$)[a-z0-9]+(-[a-z0-9]+)*$/, {
    message: 'container must be 3 to 63 lower-case letters, digits or single "-" between them',
  })
  container: string;

  @ApiPropertyOptional({ description: 'Root folder (blob name prefix) inside the container.', example: 'shoes/2026' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  path?: string;

  @ApiPropertyOptional({
    description:
      'The blob service URL, for Azurite and sovereign clouds (default `https://<account>.blob.core.windows.net`). Must be an address downloads may reach (see FETCH_ALLOW_HOSTS).',
    example: 'https://catalogueimages.blob.core.chinacloudapi.cn',
  })
  @IsOptional()
  @IsUrl(URL_RULE, { message: 'endpoint must be an http or https URL' })
  @MaxLength(512)
  endpoint?: string;

  @ApiProperty({ type: AzureBlobCredentialsDto, description: 'Either `account_key` or `sas_token`.' })
  @IsObject()
  @ValidateNested()
  @Type(() => AzureBlobCredentialsDto)
  credentials: AzureBlobCredentialsDto;
}

/** What an `azure_blob` storage shows: never the key or the token, only which of them it holds. */
interface AzureBlobShown {
  account: string;
  container: string;
  path?: string;
  endpoint?: string;
  credentials: { kind: 'account_key' | 'sas_token' };
  [member: string]: unknown;
}

/**
 * `azure_blob`: a container of an Azure Storage account, with the account key or a SAS token; `endpoint` for
 * Azurite and sovereign clouds. Lists, reads and writes (AzureBlobDriver).
 */
export const azureBlobStorageType: StorageTypeDefinition<AzureBlobParametersDto> = {
  name: 'azure_blob',
  summary: 'A container of an Azure Storage account, with the account key or a SAS token.',
  capabilities: { list: true, write: true },
  parameters: AzureBlobParametersDto,
  objectMembers: ['credentials'],
  credentialKinds: [['account_key'], ['sas_token']],
  checkTogether(parameters) {
    const details = checkRootPath(parameters);
    const { account_key, sas_token } = parameters.credentials ?? {};
    if ((account_key === undefined || account_key === null) === (sas_token === undefined || sas_token === null)) {
      details['parameters.credentials'] = ['give either account_key or sas_token'];
    }
    return details;
  },
  toSpec(parameters) {
    const { account_key, sas_token } = parameters.credentials;
    const shown: AzureBlobShown = {
      account: parameters.account,
      container: parameters.container,
      path: rootPath(parameters.path),
      endpoint: parameters.endpoint,
      credentials: { kind: account_key ? 'account_key' : 'sas_token' },
    };
    for (const key of ['path', 'endpoint'] as const) if (shown[key] === undefined) delete shown[key];
    return { parameters: shown, secret: account_key ? { account_key } : { sas_token } };
  },
  toRequest(connection) {
    const { account_key, sas_token } = connection.secret ?? {};
    // the shown `credentials` (which kind) gives way to the secret's
    return { ...connection.parameters, credentials: account_key ? { account_key } : { sas_token } };
  },
  driver(connection, context) {
    const parameters = connection.parameters as AzureBlobShown;
    return new AzureBlobDriver({
      account: parameters.account,
      container: parameters.container,
      prefix: parameters.path ?? '',
      endpoint: parameters.endpoint ?? `https://${parameters.account}.blob.core.windows.net`,
      accountKey: typeof connection.secret?.account_key === 'string' ? connection.secret.account_key : undefined,
      sasToken: typeof connection.secret?.sas_token === 'string' ? connection.secret.sas_token : undefined,
      // Endpoints come from users: every connection to them passes the same address policy as downloads.
      guard: parameters.endpoint ? context.guardOf(new URL(parameters.endpoint)) : undefined,
      listing: context.listing,
      requestTimeoutMs: context.requestTimeoutMs,
    });
  },
};
