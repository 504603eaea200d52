import 'reflect-metadata';
import { alwaysShown, ConfigError, createLogger, loadConfig, startTracing, stdoutIsTerminal } from '@app/common';
import { DatabaseUnusableError } from '@app/database';
import { createApp } from './app.factory';
import { BootstrapKeyService } from './auth/bootstrap-key.service';

async function main(): Promise<void> {
  const config = loadConfig();
  // First, so that every span of the process has its provider; flushed at shutdown by TracingModule.
  const tracing = startTracing(config, 'atelier-api');
  const logger = createLogger(config);
  if (tracing) logger.info(tracing);
  const app = await createApp(config, { logger });
  await app.listen({ port: config.port, host: config.host });
  // Last, so that a person at a terminal finds where the service is, and the first admin key, below the log.
  alwaysShown(logger, 'Main').info(
    `Atelier API listening on ${config.publicBaseUrl} (Swagger UI at ${config.publicBaseUrl}/docs)`,
  );
  app.get(BootstrapKeyService).announce(logger, stdoutIsTerminal());
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\nSee docs/configuration.md.\n`);
  } else if (error instanceof DatabaseUnusableError) {
    process.stderr.write(`Atelier API cannot start: ${error.message}\n`);
  } else {
    process.stderr.write(
      `Atelier API failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
