import 'reflect-metadata';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigModule, loadConfig, type AppConfig } from '@app/common';
import { DatabaseModule, dataSourceOptions, openDataSource } from '@app/database';
import { BootstrapKeyService } from '../apps/api/src/auth/bootstrap-key.service';
import { KeysService } from '../apps/api/src/auth/keys.service';
import { scratchEnvironment } from './helpers/test-app';

/** What one API process holds for keys: its own configuration and its own database connection. */
@Module({})
class InstanceModule {
  static forRoot(config: AppConfig) {
    return {
      module: InstanceModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule],
      providers: [KeysService],
    };
  }
}

describe('the first admin key when several instances start at once', () => {
  const INSTANCES = 4;
  let config: AppConfig;
  let cleanup: () => Promise<void>;
  const instances: INestApplicationContext[] = [];

  beforeAll(async () => {
    const scratch = await scratchEnvironment({ ADMIN_API_KEY: '', LOG_LEVEL: 'warn' });
    cleanup = scratch.cleanup;
    config = loadConfig(scratch.env);
    // The schema exists before the instances start, as after any earlier start: only the key is raced for.
    await (await openDataSource(dataSourceOptions(config))).destroy();
    for (let i = 0; i < INSTANCES; i++) {
      instances.push(await NestFactory.createApplicationContext(InstanceModule.forRoot(config), { logger: false }));
    }
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await cleanup?.();
  });

  it('creates and prints exactly one key, on SQLite and PostgreSQL', async () => {
    const printed: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
    try {
      await Promise.all(
        instances.map((instance) =>
          new BootstrapKeyService(config, instance.get(KeysService)).onApplicationBootstrap(),
        ),
      );
    } finally {
      write.mockRestore();
    }
    const keys = printed.join('').match(/\bsk_[A-Za-z0-9_-]{43}\b/g) ?? [];
    expect(keys).toHaveLength(1);
    const keyRows = () => instances[0].get<DataSource>(getDataSourceToken()).query('SELECT id FROM api_keys');
    expect(await keyRows()).toHaveLength(1);

    // A later start finds the key and creates none.
    await new BootstrapKeyService(config, instances[1].get(KeysService)).onApplicationBootstrap();
    expect(await keyRows()).toHaveLength(1);
  });
});
