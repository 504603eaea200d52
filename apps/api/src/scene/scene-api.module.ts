import { Module } from '@nestjs/common';
import { EditingModule } from '@app/editing';
import { SceneController } from './scene.controller';

/** `POST /v1/scene/create` (scope `image_generation`). */
@Module({
  imports: [EditingModule],
  controllers: [SceneController],
})
export class SceneApiModule {}
