import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '@app/common';
import { dataSourceOptions, openDataSource } from './data-source';
import { DatabaseHealth } from './database-health';
import { ENTITIES } from './entities';

/** TypeORM for the whole process; migrations run before anything else uses the database. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => dataSourceOptions(config),
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
