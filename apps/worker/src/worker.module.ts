import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module } from '@nestjs/common';
import { Redis } from 'ioredis';
import { AppConfig, ConfigModule } from '@app/common';
import { DatabaseModule } from '@app/database';
import { EDIT_QUEUE } from '@app/editing';
import { EditProcessor } from './edit.processor';
import { ShutdownLogger } from './shutdown.logger';

/** The BullMQ consumer process: connects to the edit queue and runs its jobs. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig, redisUrl: string): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule,
        BullModule.forRoot({
          // BullMQ workers block on Redis; they need unlimited retries per request.
          connection: new Redis(redisUrl, { maxRetriesPerRequest: null, connectionName: 'atelier-worker' }),
          prefix: config.redisPrefix,
        }),
        BullModule.registerQueue({ name: EDIT_QUEUE }),
      ],
      providers: [EditProcessor, ShutdownLogger],
    };
  }
}
