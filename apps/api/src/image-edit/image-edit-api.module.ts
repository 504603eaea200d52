import { Module } from '@nestjs/common';
import { EditingModule } from '@app/editing';
import { ImageEditController } from './image-edit.controller';

/** `POST /v1/image/edit` and `/v1/image/edit/upload` (scope `image_editing`). */
@Module({
  imports: [EditingModule],
  controllers: [ImageEditController],
})
export class ImageEditApiModule {}
