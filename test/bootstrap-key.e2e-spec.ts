import 'reflect-metadata';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigModule, createLogger, loadConfig, type AppConfig } from '@app/common';
import { DatabaseModule, dataSourceOptions, openDataSource } from '@app/database';
import { BootstrapKeyService, FIRST_ADMIN_KEY_FILE } from '../apps/api/src/auth/bootstrap-key.service';
import { KeysService } from '../apps/api/src/auth/keys.service';
import { scratchEnvironment } from './helpers/test-app';

/** What one API process holds for keys: its own configuration and its own database connection. */
@Module({})
class InstanceModule {
  static forRoot(config: AppConfig) {
    return {
      module: InstanceModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule.forRoot(), DatabaseModule],
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

  it('creates, prints and writes to its file exactly one key, on SQLite and PostgreSQL', async () => {
    const logLines: string[] = [];
    const logger = createLogger(
      config,
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    const services = instances.map((instance) => new BootstrapKeyService(config, instance.get(KeysService)));
    await Promise.all(services.map((service) => service.onApplicationBootstrap()));
    const printed: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
    try {
      // Each instance announces as if on a terminal, where the one that created the key prints it.
      for (const service of services) service.announce(logger, true);
    } finally {
      write.mockRestore();
    }
    const keys = printed.join('').match(/\bsk_[A-Za-z0-9_-]{43}\b/g) ?? [];
    expect(keys).toHaveLength(1);
    const keyRows = () => instances[0].get<DataSource>(getDataSourceToken()).query('SELECT id FROM api_keys');
    expect(await keyRows()).toHaveLength(1);
    // Only the instance that created the key wrote the file; the others had no secret to write.
    const file = join(config.dataDir, FIRST_ADMIN_KEY_FILE);
    expect(readFileSync(file, 'utf8')).toBe(`${keys[0]}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(logLines.join('')).not.toMatch(/sk_[A-Za-z0-9_-]{43}/);

    // A later start finds the key and creates none.
    await new BootstrapKeyService(config, instances[1].get(KeysService)).onApplicationBootstrap();
    expect(await keyRows()).toHaveLength(1);
  });
});
