import { Module } from '@nestjs/common';
import { StorageModule } from '@app/storage';
import { SamplesController } from './samples.controller';

/** Serves the sample images at /samples/<name>. */
@Module({
  imports: [StorageModule],
  controllers: [SamplesController],
})
export class SamplesApiModule {}
