import { Module } from '@nestjs/common';
import { StorageModule } from '@app/storage';
import { StorageController } from './storage.controller';
import { StoragesService } from './storages.service';

/** `/v1/storage/...`: named storage connections of an account. */
@Module({
  imports: [StorageModule],
  controllers: [StorageController],
  providers: [StoragesService],
})
export class StorageApiModule {}
