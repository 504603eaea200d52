import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig, createLogger, loadConfig, type Environment } from '@app/common';
import { createApp } from '../../apps/api/src/app.factory';
import {
  createScratchDatabase,
  scratchRedisPrefix,
  testPostgresUrl,
  testRedisUrl,
  type ScratchDatabase,
} from './databases';

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  /** Base URL on loopback, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Admin key of the default account (ADMIN_API_KEY). */
  adminKey: string;
  /** Every structured log line the app wrote. */
  logs: string[];
  env: Environment;
  close(): Promise<void>;
}

/** A fresh DATA_DIR (and PostgreSQL database and Redis prefix when configured) for one app. */
export async function scratchEnvironment(
  env: Environment = {},
): Promise<{ env: Environment; cleanup: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'atelier-test-'));
  let database: ScratchDatabase | undefined;
  if (testPostgresUrl && env.DATABASE_URL === undefined) database = await createScratchDatabase();
  const full: Environment = {
    DATA_DIR: dataDir,
    ADMIN_API_KEY: `sk_test_admin_${randomBytes(24).toString('hex')}`,
    LOG_LEVEL: 'info',
    // Generous limits so that suites are not throttled; rate-limit tests set their own.
    RATE_LIMIT_PER_SECOND: '10000',
    RATE_LIMIT_PER_MINUTE: '100000',
    ADDRESS_RATE_LIMIT_PER_SECOND: '100000',
    ADDRESS_RATE_LIMIT_PER_MINUTE: '1000000',
    AUTH_FAILURE_LIMIT_PER_MINUTE: '100000',
    ...(database ? { DATABASE_URL: database.url } : {}),
    ...(testRedisUrl ? { REDIS_URL: testRedisUrl, REDIS_PREFIX: scratchRedisPrefix() } : {}),
    ...env,
  };
  return {
    env: full,
    cleanup: async () => {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts the real API in this process on 127.0.0.1 and an ephemeral port, or on `env.PORT` when given (with a
 * matching PUBLIC_BASE_URL, the app's own URLs are the real ones).
 */
export async function startTestApp(env: Environment = {}): Promise<TestApp> {
  const scratch = await scratchEnvironment(env);
  const config = loadConfig(scratch.env);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const app = await createApp(config, { logger: createLogger(config, sink) });
  await app.listen({ port: env.PORT === undefined ? 0 : config.port, host: '127.0.0.1' });
  const address = app.getHttpServer().address() as { port: number };
  return {
    app,
    config,
    url: `http://127.0.0.1:${address.port}`,
    adminKey: scratch.env.ADMIN_API_KEY ?? '',
    logs,
    env: scratch.env,
    close: async () => {
      await app.close();
      await scratch.cleanup();
    },
  };
}
