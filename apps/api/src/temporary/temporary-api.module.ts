import { Module } from '@nestjs/common';
import { StorageModule, TemporarySweeper } from '@app/storage';
import { TemporaryController } from './temporary.controller';

/** Serves the local temporary bucket and sweeps expired files (in either mode). */
@Module({
  imports: [StorageModule],
  controllers: [TemporaryController],
  providers: [TemporarySweeper],
})
export class TemporaryApiModule {}
