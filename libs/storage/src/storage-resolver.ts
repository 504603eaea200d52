import { Injectable } from '@nestjs/common';
import { ServiceException } from '@app/common';
import { StorageConnections } from './connections/storage-connections.service';
import { parseStorageReference } from './connections/storage-reference';
import type { StorageType } from './connections/storage-parameters';
import type { StorageDriver } from './drivers/storage-driver';

/** A `storage://` reference resolved in an account: which storage, its driver, and the path inside it. */
export interface ResolvedReference {
  reference: string;
  storage: { id: number; name: string; type: StorageType };
  driver: StorageDriver;
  /** Path inside the storage, without a leading `/`; `''` for the root. */
  path: string;
  isFolder: boolean;
}

/**
 * Turns `storage://<name>/<path>` into a driver and a path, in the caller's account only. The one place that
 * parses references, so every input and output field refuses the same malformed ones.
 */
@Injectable()
export class StorageResolver {
  constructor(private readonly connections: StorageConnections) {}

  /**
   * @param field the request field the reference came from (`input`, `output.destination`), named in errors.
   * @throws ServiceException STORAGE_REFERENCE_INVALID (422) with `error_details[field]` when the reference is
   *   malformed or names no storage of this account.
   */
  async resolve(accountId: number, reference: string, field: string): Promise<ResolvedReference> {
    const parsed = parseStorageReference(reference);
    if ('error' in parsed) throw this.invalid(field, `${field} ${parsed.error}`);
    const storage = await this.connections.lookUp(accountId, parsed.name);
    if (!storage) throw this.invalid(field, `${field} names storage "${parsed.name}", which does not exist`);
    return {
      reference,
      storage: { id: storage.id, name: storage.name, type: storage.type as StorageType },
      driver: this.connections.driver(storage),
      path: parsed.path,
      isFolder: parsed.isFolder,
    };
  }

  private invalid(field: string, message: string): ServiceException {
    return new ServiceException('STORAGE_REFERENCE_INVALID', `${message}.`, { [field]: [message] });
  }
}
