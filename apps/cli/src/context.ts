import { ApiClient } from './api-client';
import { intOption, stringOption, type Values } from './args';
import { resolveConnection, type CliEnvironment } from './cli-config';
import { usageError } from './exit-codes';
import type { Streams } from './output';
import type { KeyInput } from './secret-input';

/** The key of `--key` or `--key-stdin` (not both); undefined with neither. */
export function keyOption(context: Context, values: Values): string | undefined {
  const flag = stringOption(values, 'key');
  if (flag !== undefined && values['key-stdin']) throw usageError('Give the key with --key or --key-stdin, not both.');
  return values['key-stdin'] ? context.stdinKey : flag;
}

/** What a command runs with: its streams, its environment, and the way to the service. */
export interface Context extends Streams {
  env: CliEnvironment;
  /** Standard input: where `--key-stdin` reads the key, and where `login` asks for it on a terminal. */
  input?: KeyInput;
  /** The key read from standard input (`--key-stdin`), before the command ran. */
  stdinKey?: string;
}

/** The API client for the URL and key of the flags, the environment or the config file (usage error when missing). */
export function clientFor(context: Context, values: Values): ApiClient {
  const connection = resolveConnection(
    { url: stringOption(values, 'url'), key: keyOption(context, values) },
    context.env,
  );
  const timeout = intOption(values, 'timeout', 1, 3600) ?? 120;
  return new ApiClient(connection.url, connection.key, timeout * 1000);
}
