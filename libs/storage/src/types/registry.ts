import { ServiceException } from '@app/common';
import { azureBlobStorageType } from './azure-blob/azure-blob.type';
import { gcsStorageType } from './gcs/gcs.type';
import { localStorageType } from './local/local.type';
import { s3StorageType } from './s3/s3.type';
import type { StorageCapabilities, StorageTypeDefinition } from './storage-type';
import { webFolderStorageType } from './web-folder/web-folder.type';

/**
 * THE storage types, in the order GET /v1/storage/storage-types lists them (the contract's first, then the
 * extensions). A type is added here and in its own folder; the API's validation and OpenAPI document, the
 * destination rule, the drivers, the CLI and the dashboard read this list (docs/extending.md).
 */
export const STORAGE_TYPE_DEFINITIONS: readonly StorageTypeDefinition[] = [
  webFolderStorageType,
  s3StorageType,
  gcsStorageType,
  localStorageType,
  azureBlobStorageType,
];

/** The names of the storage types, in the registry's order. */
export const STORAGE_TYPES: readonly string[] = STORAGE_TYPE_DEFINITIONS.map((type) => type.name);

/** The definition of a saved or requested type; a name no definition has is a defect (requests are validated). */
export function storageType(name: string): StorageTypeDefinition {
  const found = STORAGE_TYPE_DEFINITIONS.find((type) => type.name === name);
  if (!found) throw new Error(`unknown storage type "${name}"`);
  return found;
}

/**
 * The refusal of a storage for a use its type cannot serve, told before any work: STORAGE_OPERATION_UNSUPPORTED
 * (the code the driver itself would answer) naming the field, the type and the types that can.
 */
export function requireCapability(type: string, capability: keyof StorageCapabilities, field: string): void {
  if (storageType(type).capabilities[capability]) return;
  const able = STORAGE_TYPE_DEFINITIONS.filter((other) => other.capabilities[capability]).map((other) => other.name);
  const use = capability === 'write' ? 'written to' : 'listed';
  const instead =
    capability === 'write'
      ? `use ${[able.slice(0, -1).join(', '), able.at(-1)].filter(Boolean).join(' or ')} storage`
      : 'give its images as a list of URLs or storage references';
  throw new ServiceException('STORAGE_OPERATION_UNSUPPORTED', `A ${type} storage cannot be ${use}; ${instead}.`, {
    [field]: [`a ${type} storage cannot be ${use}; ${instead}`],
  });
}
