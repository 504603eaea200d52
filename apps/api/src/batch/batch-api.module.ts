import { DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@app/common';
import { TasksModule } from '@app/editing';
import { AuthModule } from '../auth/auth.module';
import { UsageController } from '../usage/usage.controller';
import { BatchController } from './batch.controller';
import { RevokedKeyTasks } from './revoked-key-tasks';
import { TasksController } from './tasks.controller';

/**
 * `/v1/image/edit/batch`, `/v1/image/edit/async` and the task listings `/v1/tasks` (scope `image_editing`), and
 * `/v1/usage` (which lists the account's recent task errors): the routes that read the task store; and the
 * cancellation of a revoked key's tasks.
 */
@Module({})
export class BatchApiModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: BatchApiModule,
      imports: [TasksModule.forRoot(config, 'api'), AuthModule],
      controllers: [BatchController, TasksController, UsageController],
      providers: [RevokedKeyTasks],
    };
  }
}
