import { parseCommand } from '../args';
import { clientFor, type Context } from '../context';
import { EXIT, usageError, type ExitCode } from '../exit-codes';
import { printJson, printLine } from '../output';

export const USAGE_HELP = `atelier usage [--json]
The calls used, quota left, rate-limit state and recent failed items of the key in use.`;

interface Window {
  limit: number;
  remaining: number;
  reset_seconds: number;
}

/** `GET /v1/usage` and `GET /v1/keys/{id}/usage`. */
export interface Usage {
  key: { id: number | null; name: string; prefix: string | null; scopes: string[] };
  calls_used: number;
  quota: number | null;
  calls_left: number | null;
  rate_limit: { per_second: Window; per_minute: Window };
  recent_errors: { task_id: number; input: string; error: string; created_at: string }[];
}

export function printUsage(context: Context, usage: Usage): void {
  const { key, rate_limit: limits } = usage;
  // The operator key of ADMIN_API_KEY has no id or prefix: it lives in the configuration, not the database.
  const named = [key.id === null ? 'Key' : `Key ${key.id}`, `"${key.name}"`, key.prefix ? `(${key.prefix}...)` : ''];
  printLine(context, `${named.filter(Boolean).join(' ')}, scopes ${key.scopes.join(', ')}`);
  printLine(
    context,
    `Calls used: ${usage.calls_used}; quota: ${usage.quota ?? 'unlimited'}; left: ${usage.calls_left ?? 'unlimited'}`,
  );
  for (const [name, window] of Object.entries(limits)) {
    printLine(
      context,
      `Rate limit ${name.replace('_', ' ')}: ${window.remaining} of ${window.limit} left (resets in ${window.reset_seconds} s)`,
    );
  }
  if (usage.recent_errors.length === 0) printLine(context, 'No recent errors.');
  else {
    printLine(context, 'Recent errors:');
    for (const error of usage.recent_errors) {
      printLine(context, `  ${error.created_at}  task ${error.task_id}  ${error.input}: ${error.error}`);
    }
  }
}

export async function usageCommand(context: Context, args: string[]): Promise<ExitCode> {
  const parsed = parseCommand(args);
  if (parsed.values.help) {
    printLine(context, USAGE_HELP);
    return EXIT.OK;
  }
  if (parsed.positionals.length) throw usageError('usage takes no arguments; for another key: atelier keys usage ID.');
  const usage = await clientFor(context, parsed.values).request<Usage>('GET', '/v1/usage');
  if (parsed.values.json) printJson(context, usage);
  else printUsage(context, usage);
  return EXIT.OK;
}
