import { ApiProperty } from '@nestjs/swagger';
import { IsUrl, Matches, MaxLength } from 'class-validator';
import type { WebFolderParameters } from '../../connections/storage-parameters';
import { WebFolderDriver } from './web-folder.driver';
import { URL_RULE } from '../bucket-parameters';
import type { StorageTypeDefinition } from '../storage-type';

export class WebFolderParametersDto {
  @ApiProperty({
    description: 'Base URL of the folder; files are read at base_url + path.',
    example: 'https://cdn.example.com/images/',
  })
  @IsUrl(URL_RULE, { message: 'base_url must be an http or https URL' })
  @Matches(/^[^?#]*$/, { message: 'base_url must not have a query or a fragment; paths are appended to it' })
  @MaxLength(2048)
  base_url: string;
}

/** `web_folder`: files read over HTTP(S) below a base URL; no listing, no writing, no secret. */
export const webFolderStorageType: StorageTypeDefinition<WebFolderParametersDto> = {
  name: 'web_folder',
  summary: 'Files read over HTTP(S) below a base URL: read-only, and it cannot be listed.',
  capabilities: { list: false, write: false },
  parameters: WebFolderParametersDto,
  objectMembers: [],
  toSpec: (parameters) => ({
    parameters: { base_url: parameters.base_url } satisfies WebFolderParameters,
    secret: null,
  }),
  toRequest: (connection) => ({ ...connection.parameters }),
  driver: (connection, context) =>
    new WebFolderDriver((connection.parameters as unknown as WebFolderParameters).base_url, context.fetcher),
};
