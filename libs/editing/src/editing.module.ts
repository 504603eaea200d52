import { Module } from '@nestjs/common';
import { ImagePipelineModule } from '@app/image-pipeline';
import { StorageModule } from '@app/storage';
import { EditAdmission } from './admission/edit-admission';
import { EditExecutor } from './edit-executor';
import { ResultWriter } from './results/result-writer';
import { SourceLoader } from './inputs/source-loader';
import { SceneAdmission, SceneExecutor } from './scene/scene-executor';

/** The edit itself (input -> pipeline -> output), for the API and the worker. */
@Module({
  imports: [StorageModule, ImagePipelineModule],
  providers: [EditAdmission, EditExecutor, ResultWriter, SourceLoader, SceneAdmission, SceneExecutor],
  exports: [EditAdmission, EditExecutor, ResultWriter, SourceLoader, SceneExecutor],
})
export class EditingModule {}
