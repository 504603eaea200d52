import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import {
  alwaysShown,
  ConfigError,
  createLogger,
  loadConfig,
  NestPinoLogger,
  startMetricsServer,
  startTracing,
} from '@app/common';
import { DatabaseUnusableError } from '@app/database';
import { EDIT_QUEUE, TaskWorker } from '@app/editing';
import { WorkerModule } from './worker.module';

async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.redisUrl) {
    process.stderr.write(
      'The worker runs queued jobs from Redis and needs REDIS_URL.\n' +
        'Without REDIS_URL (embedded mode) the API process runs tasks itself; no worker is needed.\n',
    );
    process.exit(2);
  }
  // Before Nest, so that every span of the process has its provider; flushed at shutdown by TracingModule.
  const tracing = startTracing(config, 'atelier-worker');
  const logger = createLogger(config);
  if (tracing) logger.info(tracing);
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(config), {
    logger: new NestPinoLogger(logger),
    // A failing start (a ConfigError from a provider, such as an unsafe key file) reaches main's catch, not abort().
    abortOnError: false,
  });
  // SIGTERM/SIGINT close the BullMQ worker: it stops taking jobs and finishes those it holds; then the process
  // exits with code 0 through process.exit, which flushes the logger's last lines ("Atelier worker stopped").
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  await app.init();
  await app.get(TaskWorker).waitUntilReady();
  // GET /metrics on a port of its own (METRICS_PORT; with METRICS_TOKEN, only for it): a worker serves no other
  // HTTP. Closed by process.exit.
  if (config.metricsPort !== 0) {
    const metrics = await startMetricsServer(config.host, config.metricsPort, config.metricsToken);
    metrics.unref();
    alwaysShown(logger, 'Worker').info(`Metrics at http://${config.host}:${config.metricsPort}/metrics`);
  }
  alwaysShown(logger, 'Worker').info(
    `Atelier worker connected to queue "${EDIT_QUEUE}" (prefix "${config.redisPrefix}")`,
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) process.stderr.write(`${error.message}\nSee docs/configuration.md.\n`);
  else if (error instanceof DatabaseUnusableError)
    process.stderr.write(`Atelier worker cannot start: ${error.message}\n`);
  else
    process.stderr.write(
      `Atelier worker failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  process.exit(1);
});
