import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { TaskService } from '@app/editing';
import { KeysService } from '../auth/keys.service';

/**
 * Revoking a key cancels its tasks that have not ended (docs/batch.md, "Cancellation"): their items not started
 * never run. A key revoked where this does not run (the keys CLI) is caught by the scheduler's next top-up of
 * its account (TaskScheduler), which cancels the tasks of revoked keys.
 */
@Injectable()
export class RevokedKeyTasks implements OnModuleInit {
  private readonly logger = new Logger(RevokedKeyTasks.name);

  constructor(
    private readonly keys: KeysService,
    private readonly tasks: TaskService,
  ) {}

  onModuleInit(): void {
    this.keys.onRevoked(async (keyId) => {
      const cancelled = await this.tasks.cancelOfKey(keyId);
      if (cancelled > 0) this.logger.log(`key ${keyId} revoked: ${cancelled} task(s) cancelled`);
    });
  }
}
