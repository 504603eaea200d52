import { isAbsolute, normalize } from 'node:path';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';
import { ServiceException } from '@app/common';
import type { StorageTypeDefinition } from '../storage-type';
import { ConfinedFolderDriver, isWithin } from './confined-folder.driver';

export class LocalParametersDto {
  @ApiProperty({
    description:
      'Absolute path of a folder on the service’s machine, under one of the folders its operator allows (LOCAL_STORAGE_ROOTS).',
    example: '/srv/catalogue/images',
  })
  @IsString()
  @Length(1, 4096)
  path: string;
}

/** Where `local` storages are off: the type names the setting that turns it on. */
const OFF = 'the local storage type is off on this service; its operator allows folders with LOCAL_STORAGE_ROOTS';

/**
 * `local`: a folder on the service's own disk, for a self-hosted team without an object store. Only under the
 * roots the operator allows (LOCAL_STORAGE_ROOTS; none by default, and then the type is refused); no reference
 * leaves the folder, links included (ConfinedFolderDriver).
 */
export const localStorageType: StorageTypeDefinition<LocalParametersDto> = {
  name: 'local',
  summary: 'A folder on the service’s own disk, under a folder its operator allows (LOCAL_STORAGE_ROOTS).',
  capabilities: { list: true, write: true },
  parameters: LocalParametersDto,
  objectMembers: [],
  toSpec(parameters, { config }) {
    const roots = config.localStorageRoots;
    if (roots.length === 0) throw ServiceException.validation({ type: [OFF] });
    if (!isAbsolute(parameters.path)) {
      throw ServiceException.validation({ 'parameters.path': ['path must be an absolute folder path'] });
    }
    const path = normalize(parameters.path).replace(/(.)\/+$/, '$1');
    if (!roots.some((root) => isWithin(path, root))) {
      throw ServiceException.validation({
        'parameters.path': ['path must lie under a folder this service allows (its operator sets LOCAL_STORAGE_ROOTS)'],
      });
    }
    return { parameters: { path }, secret: null };
  },
  toRequest: (connection) => ({ ...connection.parameters }),
  driver: (connection, { config }) =>
    new ConfinedFolderDriver(String(connection.parameters.path), config.localStorageRoots),
};
