import { DynamicModule, Module, type Provider } from '@nestjs/common';
import type { AppConfig } from '@app/common';
import { DatabaseModule } from '@app/database';
import { StorageModule } from '@app/storage';
import { EditingModule } from '../editing.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { BullMqTaskQueue } from './bullmq-task-queue';
import { InProcessTaskQueue } from './in-process-task-queue';
import { OutputStoreBreaker } from './output-store-breaker';
import { PausedTaskProber } from './paused-task-prober';
import { TaskBodies } from './task-body';
import { DurableTaskQueue, TaskQueue } from './task-queue';
import { TaskReconciler } from './task-reconciler';
import { TaskRunner } from './task-runner';
import { TaskScheduler } from './task-scheduler';
import { TaskService } from './task-service';
import { TaskWorker } from './task-worker';

/**
 * Batch and asynchronous edits. `api`: creates and shows tasks; with REDIS_URL it queues their work on BullMQ,
 * without it runs the work itself (InProcessTaskQueue). `worker`: runs queued work (TaskWorker) and queues again
 * what Redis lost (TaskReconciler).
 */
@Module({})
export class TasksModule {
  static forRoot(config: AppConfig, role: 'api' | 'worker'): DynamicModule {
    // The BullMQ queue as a durable one too: the reconciler asks it which jobs exist.
    const queue: Provider[] = config.redisUrl
      ? [
          { provide: DurableTaskQueue, useClass: BullMqTaskQueue },
          { provide: TaskQueue, useExisting: DurableTaskQueue },
        ]
      : [{ provide: TaskQueue, useClass: InProcessTaskQueue }];
    return {
      module: TasksModule,
      imports: [DatabaseModule, StorageModule, EditingModule, WebhooksModule],
      providers: [
        TaskScheduler,
        TaskBodies,
        TaskRunner,
        TaskService,
        OutputStoreBreaker,
        ...queue,
        ...(role === 'worker' ? [TaskWorker, TaskReconciler] : []),
        // paused tasks are probed where task work runs: a worker, or the API in embedded mode
        ...(role === 'worker' || !config.redisUrl ? [PausedTaskProber] : []),
      ],
      exports: [TaskService, TaskBodies, TaskQueue, ...(role === 'worker' ? [TaskWorker] : [])],
    };
  }
}
