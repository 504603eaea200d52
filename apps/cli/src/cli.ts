import type { CliEnvironment } from './cli-config';
import { BATCH_HELP, batchCommand } from './commands/batch.command';
import { EDIT_HELP, editCommand } from './commands/edit.command';
import { KEYS_HELP, keysCommand } from './commands/keys.command';
import { LOGIN_HELP, loginCommand } from './commands/login.command';
import { STORAGES_HELP, storagesCommand } from './commands/storages.command';
import { TASK_HELP, taskCommand } from './commands/task.command';
import { USAGE_HELP, usageCommand } from './commands/usage.command';
import type { Context } from './context';
import { CliError, EXIT, type ExitCode } from './exit-codes';
import type { Streams } from './output';
import { readKeyFromStdin, type KeyInput } from './secret-input';

export const HELP = `atelier: the command line of an Atelier service (its public HTTP API).

Usage: atelier COMMAND [options]        atelier help COMMAND (or atelier COMMAND --help) for its options

Commands:
  edit INPUT           edit one image (URL, storage:// reference or local file); --download saves the result
  batch SOURCE...      start a batch edit of a storage folder or a list of URLs; --watch shows its progress
  task get|list|watch|results    tasks, their progress, results and errors
  keys list|create|update|revoke|usage    API keys (admin scope)
  storages list|types|get|create|delete   storage connections
  usage                calls used, quota and rate limits of the key in use
  login --url URL [--key-stdin]  save the URL and key (asked for, or piped) in the config file

Connection (first found wins): --url / --key-stdin (the key from standard input) or --key; ATELIER_URL /
ATELIER_KEY; the config file ~/.config/atelier/config.json (ATELIER_CONFIG moves it; \`atelier login\` writes
it). --key is seen by \`ps\` and kept in shell history: prefer the others. The key is never printed.

Common options: --json (machine-readable JSON only, on stdout), --timeout SECONDS (per request, default 120).

Exit codes:
  0  success
  2  usage error: bad flags or arguments, missing URL or key
  3  the API refused the request as invalid (400, 404, 409, 422 ...): the message and fields say why
  4  authentication or permission: 401, 403, 402 (quota spent), 429 (rate limited)
  5  a task ended in ERROR, or some of its items failed
  6  the service is unreachable, timed out, or answered 5xx`;

type Command = (context: Context, args: string[]) => Promise<ExitCode>;

export const COMMANDS: Record<string, { run: Command; help: string }> = {
  edit: { run: editCommand, help: EDIT_HELP },
  batch: { run: batchCommand, help: BATCH_HELP },
  task: { run: taskCommand, help: TASK_HELP },
  tasks: { run: taskCommand, help: TASK_HELP },
  keys: { run: keysCommand, help: KEYS_HELP },
  storages: { run: storagesCommand, help: STORAGES_HELP },
  usage: { run: usageCommand, help: USAGE_HELP },
  login: { run: loginCommand, help: LOGIN_HELP },
};

/** Runs one command line; resolves with its exit code, having written what it has to say. */
export async function runCli(
  args: string[],
  env: CliEnvironment,
  streams: Streams,
  input?: KeyInput,
): Promise<ExitCode> {
  const [name, ...rest] = args;
  const context: Context = { ...streams, env, input };
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' && rest[0] ? COMMANDS[rest[0]] : undefined;
    streams.out.write(`${topic?.help ?? HELP}\n`);
    return name === undefined ? EXIT.USAGE : EXIT.OK;
  }
  const command = COMMANDS[name];
  if (!command) {
    streams.err.write(`atelier: unknown command "${name}". Run \`atelier --help\` for the list.\n`);
    return EXIT.USAGE;
  }
  try {
    // `--key-stdin` (a global flag): the key is read once, before the command, whatever the command does with it
    const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
    if (options.includes('--key-stdin')) context.stdinKey = await readKeyFromStdin(input, streams.err);
    return await command.run(context, rest);
  } catch (error) {
    if (error instanceof CliError) {
      streams.err.write(`atelier ${name}: ${error.message}\n`);
      return error.code;
    }
    streams.err.write(`atelier ${name}: unexpected failure: ${error instanceof Error ? error.stack : String(error)}\n`);
    return EXIT.UNAVAILABLE;
  }
}
