import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule, TracingModule } from '@app/common';
import { DatabaseModule } from '@app/database';
import { TasksModule } from '@app/editing';
import { GenerativeModule } from '@app/generative';
import { VisionModule } from '@app/vision';
import { ShutdownLogger } from './shutdown.logger';

/** The BullMQ consumer process: runs the edit queue's task work (TaskWorker), no HTTP. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        TracingModule,
        DatabaseModule.forRoot(),
        VisionModule,
        GenerativeModule,
        TasksModule.forRoot(config, 'worker'),
      ],
      providers: [ShutdownLogger],
    };
  }
}
