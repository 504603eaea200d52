import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigError, loadConfig } from '@app/common';
import { DatabaseUnusableError } from '@app/database';
import { createApp } from './app.factory';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApp(config);
  await app.listen({ port: config.port, host: config.host });
  new Logger('Main').log(
    `Atelier API listening on ${config.publicBaseUrl} (Swagger UI at ${config.publicBaseUrl}/docs)`,
  );
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
