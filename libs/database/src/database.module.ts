import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '@app/common';
import { isTransientDatabaseError } from './database-file';
import { dataSourceOptions, openDataSource } from './data-source';
import { DatabaseHealth } from './database-health';
import { ENTITIES } from './entities';

/** TypeORM for the whole process; migrations run before anything else uses the database. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      // Retries only outlast a server that is still starting; a damaged file or a refused database fails at once.
      useFactory: (config: AppConfig) => ({ ...dataSourceOptions(config), toRetry: isTransientDatabaseError }),
      dataSourceFactory: async (options) => {
        if (!options) throw new Error('database options missing');
        return openDataSource(options);
      },
    }),
    TypeOrmModule.forFeature(ENTITIES),
  ],
  providers: [DatabaseHealth],
  exports: [TypeOrmModule, DatabaseHealth],
})
export class DatabaseModule {}
