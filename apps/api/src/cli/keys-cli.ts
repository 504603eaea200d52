import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync } from 'class-validator';
import {
  ConfigError,
  ConfigModule,
  flattenValidationErrors,
  loadConfig,
  MAX_ID,
  ServiceException,
  type AppConfig,
} from '@app/common';
import { DatabaseHealth, DatabaseModule, DatabaseUnusableError, SCOPES, type Scope } from '@app/database';
import { CreateKeyDto, ListKeysQueryDto, toCreateKeyInput } from '../auth/dto/create-key.dto';
import { toKeyResponse, type KeyResponseDto } from '../auth/dto/key-response.dto';
import { KeysService } from '../auth/keys.service';

const USAGE = `Manage Atelier API keys in the service's database (the same DATA_DIR / DATABASE_URL as the
service; it must have started once to create it).

Usage:
  npm run keys -- create --name NAME --scopes SCOPE[,SCOPE] [--quota N] [--account NAME]
                         [--per-second N] [--per-minute N]
  npm run keys -- list [--account NAME] [--json]
  npm run keys -- revoke ID

Scopes: ${SCOPES.join(', ')} (admin includes all).
The secret of a new key is printed once; only its hash is stored.`;

class UsageError extends Error {}

@Module({})
class KeysCliModule {
  static forRoot(config: AppConfig) {
    return {
      module: KeysCliModule,
      imports: [ConfigModule.forRoot(config), DatabaseModule.forRoot('existing'), DatabaseModule],
      providers: [KeysService],
    };
  }
}

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--${name} must be a positive integer`);
  return Number(value);
}

function parseScopes(value: string | undefined): Scope[] {
  const scopes = (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (scopes.length === 0) throw new UsageError('--scopes is required');
  const unknown = scopes.filter((scope) => !SCOPES.includes(scope as Scope));
  if (unknown.length) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}; use ${SCOPES.join(', ')}`);
  return [...new Set(scopes)] as Scope[];
}

/**
 * Checks command-line input with the same DTO rules as the HTTP API; a failure names the
 * field as the API would (`name`, `rate_limit.per_second`).
 */
function validated<T extends object>(dto: ClassConstructor<T>, plain: Record<string, unknown>): T {
  const instance = plainToInstance(dto, plain);
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) {
    const details = flattenValidationErrors(errors);
    throw new UsageError(Object.values(details).flat().join('; '));
  }
  return instance;
}

function table(keys: KeyResponseDto[]): string {
  const rows = keys.map((k) => [
    String(k.id),
    k.account,
    k.name,
    k.prefix + '…',
    k.scopes.join(','),
    k.quota === null ? '-' : `${k.calls_used}/${k.quota}`,
    k.revoked ? 'revoked' : 'active',
    k.last_used_at ?? '-',
  ]);
  const header = ['ID', 'ACCOUNT', 'NAME', 'PREFIX', 'SCOPES', 'CALLS', 'STATE', 'LAST USED'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      scopes: { type: 'string' },
      quota: { type: 'string' },
      account: { type: 'string' },
      'per-second': { type: 'string' },
      'per-minute': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    if (!command && !values.help) process.exitCode = 2;
    return;
  }
  if (!['create', 'list', 'revoke'].includes(command)) throw new UsageError(`unknown command "${command}"`);
  const input =
    command === 'create'
      ? toCreateKeyInput(
          validated(CreateKeyDto, {
            name: values.name,
            scopes: parseScopes(values.scopes),
            quota: positiveInt('quota', values.quota),
            account: values.account,
            rate_limit: {
              per_second: positiveInt('per-second', values['per-second']),
              per_minute: positiveInt('per-minute', values['per-minute']),
            },
          }),
        )
      : undefined;
  const listQuery = command === 'list' ? validated(ListKeysQueryDto, { account: values.account }) : undefined;
  const revokeId = command === 'revoke' ? positiveInt('id', rest[0]) : undefined;
  if (revokeId !== undefined && revokeId > MAX_ID) throw new UsageError(`a key id is at most ${MAX_ID}`);
  if (command === 'revoke' && revokeId === undefined) throw new UsageError('revoke needs the key id');

  const config = loadConfig();
  const app = await NestFactory.createApplicationContext(KeysCliModule.forRoot(config), {
    logger: false,
    abortOnError: false,
  });
  try {
    // On stderr, so that `list --json` stays parseable: which database a wrong DATA_DIR would have shown.
    process.stderr.write(`Using ${app.get(DatabaseHealth).describe()}\n`);
    const keys = app.get(KeysService);
    if (input) {
      const created = await keys.create(input);
      process.stdout.write(
        `Created key ${created.entity.id} "${created.entity.name}" for account ${created.account} (${created.entity.scopes.join(', ')}).\n` +
          `Key (shown once, store it now):\n${created.secret}\n`,
      );
    } else if (command === 'list') {
      const listed = (await keys.list(undefined, listQuery?.account)).map(({ entity, account }) =>
        toKeyResponse(entity, account),
      );
      process.stdout.write(values.json ? `${JSON.stringify(listed, null, 2)}\n` : `${table(listed)}\n`);
    } else if (revokeId !== undefined) {
      const { entity } = await keys.revoke(revokeId);
      process.stdout.write(`Revoked key ${entity.id} "${entity.name}".\n`);
    }
  } finally {
    await app.close();
  }
}

run(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) process.stderr.write(`error: ${error.message}\n\n${USAGE}\n`);
  else if (error instanceof ConfigError || error instanceof DatabaseUnusableError) {
    process.stderr.write(`${error.message}\n`);
  } else if (error instanceof ServiceException) process.stderr.write(`error: ${error.message}\n`);
  else process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
