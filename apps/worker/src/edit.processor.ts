import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Job, UnrecoverableError } from 'bullmq';
import { EDIT_QUEUE } from '@app/editing';

/** Thin: one case per job name, each calling a library service. Unknown names fail for good. */
@Processor(EDIT_QUEUE)
export class EditProcessor extends WorkerHost {
  private readonly logger = new Logger(EditProcessor.name);

  process(job: Job): Promise<unknown> {
    switch (job.name) {
      default:
        this.logger.error(`job ${job.id} has the unknown name "${job.name}"`);
        throw new UnrecoverableError(`unknown job name "${job.name}"`);
    }
  }
}
