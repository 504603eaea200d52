import { ApiClient } from './api-client';
import { intOption, stringOption, type Values } from './args';
import { resolveConnection, type CliEnvironment } from './cli-config';
import type { Streams } from './output';

/** What a command runs with: its streams, its environment, and the way to the service. */
export interface Context extends Streams {
  env: CliEnvironment;
}

/** The API client for the URL and key of the flags, the environment or the config file (usage error when missing). */
export function clientFor(context: Context, values: Values): ApiClient {
  const connection = resolveConnection(
    { url: stringOption(values, 'url'), key: stringOption(values, 'key') },
    context.env,
  );
  const timeout = intOption(values, 'timeout', 1, 3600) ?? 120;
  return new ApiClient(connection.url, connection.key, timeout * 1000);
}
