import { parseCommand, requiredOption } from '../args';
import { checkUrl, configPath, writeStoredConfig } from '../cli-config';
import { keyOption, type Context } from '../context';
import { EXIT, usageError, type ExitCode } from '../exit-codes';
import { promptForKey } from '../secret-input';
import { printLine } from '../output';

export const LOGIN_HELP = `atelier login --url URL [--key-stdin]
Saves the service URL and key in the config file (~/.config/atelier/config.json, or ATELIER_CONFIG), readable by
you only (mode 0600). The key: asked for on a terminal (not shown as you type), or piped with --key-stdin
(printf %s "$KEY" | atelier login --url URL --key-stdin). --key KEY works too, but a key in the arguments is
seen by \`ps\` and kept in the shell's history. Flags and ATELIER_URL / ATELIER_KEY take precedence over the file.`;

export async function loginCommand(context: Context, args: string[]): Promise<ExitCode> {
  const parsed = parseCommand(args);
  if (parsed.values.help) {
    printLine(context, LOGIN_HELP);
    return EXIT.OK;
  }
  const url = checkUrl(requiredOption(parsed.values, 'url'));
  let key = keyOption(context, parsed.values);
  if (key === undefined) {
    if (!context.input?.isTTY) {
      throw usageError(
        'No key: pipe it with --key-stdin (printf %s "$KEY" | atelier login --url URL --key-stdin), or run ' +
          'login in a terminal to be asked for it.',
      );
    }
    key = await promptForKey(context.input, context.err);
  } else if (!parsed.values['key-stdin']) {
    context.err.write(
      'Note: a key given with --key is seen by `ps` and kept in your shell history; prefer --key-stdin.\n',
    );
  }
  if (!key) throw usageError('--key is empty.');
  const path = configPath(context.env);
  writeStoredConfig(path, { url, key });
  printLine(context, `Saved the URL ${url} and the key to ${path} (mode 0600).`);
  return EXIT.OK;
}
