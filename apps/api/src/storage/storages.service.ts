import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/common';
import type { StorageEntity } from '@app/database';
import { StorageConnections, storageType, type StorageSpec } from '@app/storage';
import type { Principal } from '../auth/principal';
import type { CreateStorageDto, UpdateStorageDto } from './dto/storage-request.dto';
import { mergeParameters, toRequestParameters, toStorageSpec } from './storage-spec';

/** The storage endpoints' use cases: validate, prove reachability, save; always inside the caller's account. */
@Injectable()
export class StoragesService {
  constructor(
    private readonly connections: StorageConnections,
    private readonly config: AppConfig,
  ) {}

  list(caller: Principal): Promise<StorageEntity[]> {
    return this.connections.list(caller.accountId);
  }

  get(caller: Principal, id: number): Promise<StorageEntity> {
    return this.connections.get(caller.accountId, id);
  }

  async create(caller: Principal, body: CreateStorageDto): Promise<StorageEntity> {
    const spec = toStorageSpec(body.name, body.type, body.parameters, { config: this.config });
    await this.connections.assertNameFree(caller.accountId, spec.name);
    await this.connections.check(spec);
    return this.connections.create(caller.accountId, spec);
  }

  async update(caller: Principal, id: number, body: UpdateStorageDto): Promise<StorageEntity> {
    const storage = await this.connections.get(caller.accountId, id);
    // `null` removes a member inside `parameters`; the top-level members cannot be removed, so there it is absent.
    const type = body.type ?? undefined;
    const changes = body.parameters ?? undefined;
    const name = body.name ?? storage.name;
    let spec: StorageSpec;
    if (type !== undefined && type !== storage.type) {
      spec = toStorageSpec(name, type, changes ?? {}, { config: this.config });
    } else {
      const current = this.connections.connection(storage, { lenient: true });
      const kinds = storageType(current.type).credentialKinds;
      const parameters = mergeParameters(toRequestParameters(current), changes ?? {}, kinds);
      spec = toStorageSpec(name, current.type, parameters, { config: this.config });
    }
    if (name !== storage.name) await this.connections.assertNameFree(caller.accountId, name);
    // A rename alone changes nothing the service connects to; anything else is proven reachable first.
    if (type !== undefined || changes !== undefined) await this.connections.check(spec);
    return this.connections.update(storage, spec);
  }

  async remove(caller: Principal, id: number): Promise<void> {
    await this.connections.remove(await this.connections.get(caller.accountId, id));
  }
}
