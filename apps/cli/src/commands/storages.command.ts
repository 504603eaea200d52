import {
  idArgument,
  jsonArgument,
  parseCommand,
  requiredOption,
  stringOption,
  type Parsed,
  type Values,
} from '../args';
import { clientFor, type Context } from '../context';
import { EXIT, usageError, type ExitCode } from '../exit-codes';
import { formatTable, printJson, printLine } from '../output';

export const STORAGES_HELP = `atelier storages list
atelier storages types                 the storage types and their parameters
atelier storages get ID
atelier storages create --name NAME --type s3|gcs --bucket B [--path P] [--endpoint URL] [--region R]
                        --access-key ID --secret-key SECRET
atelier storages create --name NAME --type web_folder --base-url URL
atelier storages create --name NAME --type TYPE --param NAME=VALUE ...   any type's parameters, one flag each;
                        a dotted name nests (--param credentials.account_key=KEY); see "storages types"
atelier storages create --json '{"name": ..., "type": ..., "parameters": {...}}'   (or --json @storage.json)
atelier storages delete ID
Secrets are sent once and never shown again. Every subcommand takes --json (JSON only on stdout).`;

interface Storage {
  id: number;
  name: string;
  type: string;
  parameters: Record<string, unknown>;
}

const CREATE_OPTIONS = {
  name: { type: 'string' },
  type: { type: 'string' },
  bucket: { type: 'string' },
  path: { type: 'string' },
  endpoint: { type: 'string' },
  region: { type: 'string' },
  'access-key': { type: 'string' },
  'secret-key': { type: 'string' },
  'base-url': { type: 'string' },
  param: { type: 'string', multiple: true },
} as const;

export async function storagesCommand(context: Context, args: string[]): Promise<ExitCode> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list':
      return show(context, parseCommand(rest), '/v1/storage/storages');
    case 'types':
      return show(context, parseCommand(rest), '/v1/storage/storage-types');
    case 'get': {
      const parsed = parseCommand(rest);
      return show(context, parsed, `/v1/storage/storages/${idArgument(parsed, 0, 'storage ID')}`);
    }
    case 'create':
      return create(context, rest);
    case 'delete':
      return remove(context, parseCommand(rest));
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      printLine(context, STORAGES_HELP);
      return sub === undefined ? EXIT.USAGE : EXIT.OK;
    default:
      throw usageError(`Unknown storages subcommand "${sub}": use list, types, get, create or delete.`);
  }
}

/** One storage, or a list of them, as a table (the parameters as JSON: they never hold a secret). */
function printStorages(context: Context, storages: Storage[]): void {
  const rows = storages.map((storage) => [
    String(storage.id),
    storage.name,
    storage.type,
    JSON.stringify(storage.parameters),
  ]);
  printLine(context, formatTable(['ID', 'NAME', 'TYPE', 'PARAMETERS'], rows));
}

async function show(context: Context, parsed: Parsed, path: string): Promise<ExitCode> {
  if (parsed.values.help) {
    printLine(context, STORAGES_HELP);
    return EXIT.OK;
  }
  const answer = await clientFor(context, parsed.values).request<Storage | Storage[]>('GET', path);
  const storages = Array.isArray(answer) ? answer : [answer];
  if (parsed.values.json || path.endsWith('storage-types') || !storages.every((item) => 'parameters' in item)) {
    printJson(context, answer);
  } else printStorages(context, storages);
  return EXIT.OK;
}

/**
 * `--param a.b=value` flags as parameters: a dotted name nests; the service validates them as its type says, so a
 * type the service adds needs nothing here.
 */
function parametersFromFlags(flags: string[]): Record<string, unknown> {
  const parameters: Record<string, unknown> = {};
  for (const flag of flags) {
    const equals = flag.indexOf('=');
    if (equals <= 0) throw usageError(`--param takes NAME=VALUE, not "${flag}" (see --help).`);
    const path = flag.slice(0, equals).split('.');
    let into = parameters;
    for (const member of path.slice(0, -1)) {
      const next = into[member];
      into = (into[member] = typeof next === 'object' && next !== null ? next : {}) as Record<string, unknown>;
    }
    into[path[path.length - 1]] = flag.slice(equals + 1);
  }
  return parameters;
}

/** The body of a storage from flags: the parameters its type takes. */
function bodyFromFlags(values: Values): Record<string, unknown> {
  const type = requiredOption(values, 'type');
  const name = requiredOption(values, 'name');
  const generic = values.param;
  if (Array.isArray(generic)) return { name, type, parameters: parametersFromFlags(generic) };
  if (type === 'web_folder') return { name, type, parameters: { base_url: requiredOption(values, 'base-url') } };
  const optional = (flag: string, member = flag) =>
    values[flag] !== undefined ? { [member]: stringOption(values, flag) } : {};
  return {
    name,
    type,
    parameters: {
      bucket: requiredOption(values, 'bucket'),
      ...optional('path'),
      ...optional('endpoint'),
      ...optional('region'),
      credentials: {
        access_key: requiredOption(values, 'access-key'),
        secret_access_key: requiredOption(values, 'secret-key'),
      },
    },
  };
}

async function create(context: Context, args: string[]): Promise<ExitCode> {
  // `--json BODY` (inline or @file) is the storage itself; a bare `--json` asks for JSON output.
  const at = args.findIndex((arg, index) => arg === '--json' && /^[{@]/.test(args[index + 1] ?? ''));
  const given = at >= 0 ? args[at + 1] : undefined;
  const rest = at >= 0 ? [...args.slice(0, at), ...args.slice(at + 2)] : args;
  const parsed = parseCommand(rest, CREATE_OPTIONS);
  if (parsed.values.help) {
    printLine(context, STORAGES_HELP);
    return EXIT.OK;
  }
  const body = given === undefined ? bodyFromFlags(parsed.values) : jsonArgument(given, 'json');
  const storage = await clientFor(context, parsed.values).request<Storage>('POST', '/v1/storage/storages', { body });
  if (parsed.values.json || given !== undefined) printJson(context, storage);
  else {
    printLine(context, `Created storage ${storage.id} "${storage.name}": use it as storage://${storage.name}/...`);
  }
  return EXIT.OK;
}

async function remove(context: Context, parsed: Parsed): Promise<ExitCode> {
  if (parsed.values.help) {
    printLine(context, STORAGES_HELP);
    return EXIT.OK;
  }
  const id = idArgument(parsed, 0, 'storage ID');
  const answer = await clientFor(context, parsed.values).request<unknown>('DELETE', `/v1/storage/storages/${id}`);
  if (parsed.values.json) printJson(context, answer ?? { id: Number(id), deleted: true });
  else printLine(context, `Deleted storage ${id}.`);
  return EXIT.OK;
}
