import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '@app/common';
import { isTransientDatabaseError } from './database-file';
import { dataSourceOptions, openDataSource, type DatabaseOpening } from './data-source';
import { DatabaseHealth } from './database-health';
import { KeyRows } from './repositories/key-rows';
import { ScheduleRows } from './repositories/schedule-rows';
import { StorageRows } from './repositories/storage-rows';
import { TaskItemRows } from './repositories/task-item-rows';
import { TaskRows } from './repositories/task-rows';
import { WebhookSecretRows } from './repositories/webhook-secret-rows';
import { ENTITIES } from './entities';

/** The process's one connection, made by {@link DatabaseModule.forRoot}. */
@Module({})
class DatabaseConnectionModule {}

/**
 * The entities' repositories and the readiness check, for any module that imports it. The connection itself
 * comes once per process from `DatabaseModule.forRoot()` in the root module; migrations run before anything
 * else uses the database.
 */
@Module({
  imports: [TypeOrmModule.forFeature(ENTITIES)],
  providers: [DatabaseHealth, KeyRows, ScheduleRows, StorageRows, TaskItemRows, TaskRows, WebhookSecretRows],
  exports: [
    TypeOrmModule,
    DatabaseHealth,
    KeyRows,
    ScheduleRows,
    StorageRows,
    TaskItemRows,
    TaskRows,
    WebhookSecretRows,
  ],
})
export class DatabaseModule {
  /** `opening`: whether this process may create the database (data-source.ts, DatabaseOpening). */
  static forRoot(opening: DatabaseOpening = 'create'): DynamicModule {
    return {
      module: DatabaseConnectionModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [AppConfig],
          // Retries only outlast a server that is still starting; a damaged file or a refused database fails at once.
          useFactory: (config: AppConfig) => ({
            ...dataSourceOptions(config, opening),
            toRetry: isTransientDatabaseError,
          }),
          dataSourceFactory: async (options) => {
            if (!options) throw new Error('database options missing');
            return openDataSource(options, opening);
          },
        }),
      ],
    };
  }
}
