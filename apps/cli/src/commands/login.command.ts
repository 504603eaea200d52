import { parseCommand, requiredOption } from '../args';
import { checkUrl, configPath, writeStoredConfig } from '../cli-config';
import type { Context } from '../context';
import { EXIT, type ExitCode } from '../exit-codes';
import { printLine } from '../output';

export const LOGIN_HELP = `atelier login --url URL --key KEY
Saves the service URL and key in the config file (~/.config/atelier/config.json, or ATELIER_CONFIG), readable by
you only (mode 0600). Flags and ATELIER_URL / ATELIER_KEY still take precedence over it.`;

export async function loginCommand(context: Context, args: string[]): Promise<ExitCode> {
  const parsed = parseCommand(args);
  if (parsed.values.help) {
    printLine(context, LOGIN_HELP);
    return EXIT.OK;
  }
  const url = checkUrl(requiredOption(parsed.values, 'url'));
  const key = requiredOption(parsed.values, 'key');
  const path = configPath(context.env);
  writeStoredConfig(path, { url, key });
  printLine(context, `Saved the URL ${url} and the key to ${path} (mode 0600).`);
  return EXIT.OK;
}
