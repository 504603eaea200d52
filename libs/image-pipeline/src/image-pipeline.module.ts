import { Module } from '@nestjs/common';
import { ImagePipeline } from './image-pipeline';

/** Provides the {@link ImagePipeline}; needs the global ConfigModule (AppConfig). */
@Module({ providers: [ImagePipeline], exports: [ImagePipeline] })
export class ImagePipelineModule {}
