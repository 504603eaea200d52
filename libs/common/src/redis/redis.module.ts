import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { AppConfig } from '../config/app-config';

/** Injection token of the shared Redis client: an ioredis instance, or null in embedded mode. */
export const REDIS = Symbol('REDIS');
export type RedisClient = Redis | null;

/** Opens a Redis client for REDIS_URL; callers wait for it to connect when they need it. */
export function createRedisClient(url: string, name: string): Redis {
  return new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    lazyConnect: false,
  });
}

class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.redis && this.redis.status !== 'end') await this.redis.quit().catch(() => this.redis?.disconnect());
  }
}

/** The process-wide Redis client, present when REDIS_URL is configured. */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: (config: AppConfig): RedisClient =>
        config.redisUrl ? createRedisClient(config.redisUrl, 'atelier-api') : null,
    },
    RedisCloser,
  ],
  exports: [REDIS],
})
export class RedisModule {}
