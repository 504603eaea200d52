import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule, RedisModule, TracingModule } from '@app/common';
import { DatabaseModule } from '@app/database';
import { GenerativeModule } from '@app/generative';
import { VisionModule } from '@app/vision';
import { AuthModule } from './auth/auth.module';
import { BatchApiModule } from './batch/batch-api.module';
import { DashboardModule } from './dashboard/dashboard.module';
import { HealthController } from './health/health.controller';
import { ImageEditApiModule } from './image-edit/image-edit-api.module';
import { SamplesApiModule } from './samples/samples-api.module';
import { SceneApiModule } from './scene/scene-api.module';
import { StorageApiModule } from './storage/storage-api.module';
import { TemporaryApiModule } from './temporary/temporary-api.module';
import { WebhooksApiModule } from './webhooks/webhooks-api.module';

/** The HTTP API: one module per feature; cross-cutting pieces come from libs/common. */
@Module({})
export class ApiModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [
        ConfigModule.forRoot(config),
        TracingModule,
        RedisModule,
        DatabaseModule.forRoot(),
        DatabaseModule,
        VisionModule,
        GenerativeModule,
        AuthModule,
        StorageApiModule,
        TemporaryApiModule,
        SamplesApiModule,
        ImageEditApiModule,
        SceneApiModule,
        BatchApiModule.forRoot(config),
        WebhooksApiModule,
        DashboardModule,
      ],
      controllers: [HealthController],
    };
  }
}
