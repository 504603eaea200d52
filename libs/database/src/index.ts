export * from './database.module';
export * from './data-source';
export * from './entities';
export * from './database-health';
export * from './database-file';
export * from './key-quota';
export * from './repositories/storage-rows';
export * from './repositories/webhook-secret-rows';
