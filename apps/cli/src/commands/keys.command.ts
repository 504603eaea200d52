import {
  idArgument,
  intOption,
  listOption,
  parseCommand,
  requiredOption,
  stringOption,
  type Parsed,
  type Values,
} from '../args';
import { clientFor, type Context } from '../context';
import { EXIT, usageError, type ExitCode } from '../exit-codes';
import { cell, formatTable, printJson, printLine } from '../output';
import { printUsage, type Usage } from './usage.command';

export const KEYS_HELP = `atelier keys list [--account NAME]
atelier keys create --name NAME --scopes SCOPE[,SCOPE] [--quota N] [--per-second N] [--per-minute N] [--account NAME]
                     the new key is printed once: copy it then
atelier keys update ID [--name NAME] [--scopes SCOPE[,SCOPE]] [--quota N|unlimited] [--per-second N] [--per-minute N]
atelier keys revoke ID
atelier keys usage ID          calls, quota and rate-limit state of a key
Scopes: image_editing, image_generation, storage, admin. These need a key with the admin scope.
Every subcommand takes --json (JSON only on stdout).`;

interface Key {
  id: number;
  name: string;
  prefix: string;
  account: string;
  scopes: string[];
  quota: number | null;
  calls_used: number;
  revoked: boolean;
  created_at: string;
  last_used_at: string | null;
  key?: string;
}

const LIMIT_OPTIONS = { 'per-second': { type: 'string' }, 'per-minute': { type: 'string' } } as const;
const KEY_OPTIONS = {
  name: { type: 'string' },
  scopes: { type: 'string' },
  quota: { type: 'string' },
  ...LIMIT_OPTIONS,
} as const;

function rateLimit(values: Values) {
  const perSecond = intOption(values, 'per-second', 1);
  const perMinute = intOption(values, 'per-minute', 1);
  if (perSecond === undefined && perMinute === undefined) return {};
  return {
    rate_limit: { ...(perSecond ? { per_second: perSecond } : {}), ...(perMinute ? { per_minute: perMinute } : {}) },
  };
}

export async function keysCommand(context: Context, args: string[]): Promise<ExitCode> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list':
      return list(context, parseCommand(rest, { account: { type: 'string' } }));
    case 'create':
      return create(context, parseCommand(rest, { ...KEY_OPTIONS, account: { type: 'string' } }));
    case 'update':
      return update(context, parseCommand(rest, KEY_OPTIONS));
    case 'revoke':
      return revoke(context, parseCommand(rest));
    case 'usage':
      return usage(context, parseCommand(rest));
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      printLine(context, KEYS_HELP);
      return sub === undefined ? EXIT.USAGE : EXIT.OK;
    default:
      throw usageError(`Unknown keys subcommand "${sub}": use list, create, update, revoke or usage.`);
  }
}

function helpRequested(context: Context, parsed: Parsed): boolean {
  if (parsed.values.help) printLine(context, KEYS_HELP);
  return parsed.values.help === true;
}

async function list(context: Context, parsed: Parsed): Promise<ExitCode> {
  if (helpRequested(context, parsed)) return EXIT.OK;
  const query = { account: stringOption(parsed.values, 'account') };
  const keys = await clientFor(context, parsed.values).request<Key[]>('GET', '/v1/keys', { query });
  if (parsed.values.json) printJson(context, keys);
  else {
    const rows = keys.map((key) => [
      String(key.id),
      key.name,
      key.prefix,
      key.scopes.join(','),
      cell(key.quota),
      String(key.calls_used),
      key.revoked ? 'revoked' : 'active',
      cell(key.last_used_at),
    ]);
    printLine(context, formatTable(['ID', 'NAME', 'PREFIX', 'SCOPES', 'QUOTA', 'USED', 'STATE', 'LAST USED'], rows));
  }
  return EXIT.OK;
}

function describeKey(key: Key): string {
  return `Key ${key.id} "${key.name}" (${key.prefix}...): scopes ${key.scopes.join(', ')}; quota ${key.quota ?? 'unlimited'}; ${key.calls_used} calls used${key.revoked ? '; revoked' : ''}.`;
}

async function create(context: Context, parsed: Parsed): Promise<ExitCode> {
  if (helpRequested(context, parsed)) return EXIT.OK;
  const { values } = parsed;
  const body = {
    name: requiredOption(values, 'name'),
    scopes: listOption(values, 'scopes') ?? [],
    ...(values.quota !== undefined ? { quota: intOption(values, 'quota', 1) } : {}),
    ...(values.account !== undefined ? { account: stringOption(values, 'account') } : {}),
    ...rateLimit(values),
  };
  if (body.scopes.length === 0) throw usageError('--scopes is required: e.g. --scopes image_editing,storage.');
  const key = await clientFor(context, values).request<Key>('POST', '/v1/keys', { body });
  if (values.json) printJson(context, key);
  else {
    printLine(context, describeKey(key));
    printLine(context, 'The key, shown this once (only its hash is stored): copy it now.');
    printLine(context, `  ${key.key}`);
  }
  return EXIT.OK;
}

async function update(context: Context, parsed: Parsed): Promise<ExitCode> {
  if (helpRequested(context, parsed)) return EXIT.OK;
  const { values } = parsed;
  const id = idArgument(parsed, 0, 'key ID');
  const quota = stringOption(values, 'quota');
  const body = {
    ...(values.name !== undefined ? { name: stringOption(values, 'name') } : {}),
    ...(values.scopes !== undefined ? { scopes: listOption(values, 'scopes') } : {}),
    ...(quota !== undefined ? { quota: quota === 'unlimited' ? null : intOption(values, 'quota', 0) } : {}),
    ...rateLimit(values),
  };
  if (Object.keys(body).length === 0) {
    throw usageError('Nothing to change: give --name, --scopes, --quota, --per-second or --per-minute.');
  }
  const key = await clientFor(context, values).request<Key>('PATCH', `/v1/keys/${id}`, { body });
  if (values.json) printJson(context, key);
  else printLine(context, `Updated. ${describeKey(key)}`);
  return EXIT.OK;
}

async function revoke(context: Context, parsed: Parsed): Promise<ExitCode> {
  if (helpRequested(context, parsed)) return EXIT.OK;
  const id = idArgument(parsed, 0, 'key ID');
  const key = await clientFor(context, parsed.values).request<Key>('DELETE', `/v1/keys/${id}`);
  if (parsed.values.json) printJson(context, key);
  else printLine(context, `Revoked. ${describeKey(key)}`);
  return EXIT.OK;
}

async function usage(context: Context, parsed: Parsed): Promise<ExitCode> {
  if (helpRequested(context, parsed)) return EXIT.OK;
  const id = idArgument(parsed, 0, 'key ID');
  const answer = await clientFor(context, parsed.values).request<Usage>('GET', `/v1/keys/${id}/usage`);
  if (parsed.values.json) printJson(context, answer);
  else printUsage(context, answer);
  return EXIT.OK;
}
