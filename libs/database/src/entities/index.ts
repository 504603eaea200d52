import { AccountEntity } from './account.entity';
import { ApiKeyEntity } from './api-key.entity';
import { StorageEntity } from './storage.entity';

export * from './account.entity';
export * from './api-key.entity';
export * from './storage.entity';

/** Every entity the service persists. */
export const ENTITIES = [AccountEntity, ApiKeyEntity, StorageEntity];
