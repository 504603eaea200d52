export * from './database.module';
export * from './data-source';
export * from './entities';
