import { DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from '@app/common';
import { TasksModule } from '@app/editing';
import { BatchController } from './batch.controller';

/** `/v1/image/edit/batch` and `/v1/image/edit/async` (scope `image_editing`). */
@Module({})
export class BatchApiModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: BatchApiModule, imports: [TasksModule.forRoot(config, 'api')], controllers: [BatchController] };
  }
}
