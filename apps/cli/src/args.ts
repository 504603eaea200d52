import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { usageError } from './exit-codes';

type OptionSpec = { type: 'string' | 'boolean'; short?: string; multiple?: boolean };
export type OptionSpecs = Record<string, OptionSpec>;
export type Values = Record<string, string | boolean | string[] | undefined>;

/** Flags every command takes. */
export const GLOBAL_OPTIONS: OptionSpecs = {
  url: { type: 'string' },
  key: { type: 'string' },
  // the key from standard input (read before the command runs: cli.ts), never visible in `ps` or history
  'key-stdin': { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  timeout: { type: 'string' },
};

export interface Parsed {
  values: Values;
  positionals: string[];
}

/** Parses a command's arguments strictly: an unknown flag or a flag without its value is a usage error. */
export function parseCommand(args: string[], options: OptionSpecs = {}): Parsed {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { ...GLOBAL_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Values, positionals };
  } catch (error) {
    throw usageError(`${(error as Error).message.replace(/\. To specify.*$/s, '.')} (see --help)`);
  }
}

export function stringOption(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function requiredOption(values: Values, name: string): string {
  const value = stringOption(values, name);
  if (value === undefined || value === '') throw usageError(`--${name} is required (see --help).`);
  return value;
}

/** An integer flag within [min, max]; undefined when absent. */
export function intOption(values: Values, name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const value = stringOption(values, name);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw usageError(
      `--${name} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}, not "${value}".`,
    );
  }
  return Number(value);
}

/** A positional that must be there, named for the message. */
export function positional(parsed: Parsed, index: number, name: string): string {
  const value = parsed.positionals[index];
  if (value === undefined) throw usageError(`Missing ${name} (see --help).`);
  return value;
}

/** A task or key id: a positive whole number. */
export function idArgument(parsed: Parsed, index: number, name: string): string {
  const value = positional(parsed, index, name);
  if (!/^\d+$/.test(value)) throw usageError(`The ${name} must be a number, not "${value}".`);
  return value;
}

/** JSON given inline (`'{...}'`) or from a file (`@path`), as for `--operations`. */
export function jsonArgument(value: string, flag: string): unknown {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readFileSync(value.slice(1), 'utf8');
    } catch (error) {
      throw usageError(`--${flag}: cannot read ${value.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? error}.`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw usageError(`--${flag} is not valid JSON: ${(error as Error).message}.`);
  }
}

/** A comma-separated list (`--scopes image_editing,storage`). */
export function listOption(values: Values, name: string): string[] | undefined {
  const value = stringOption(values, name);
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) throw usageError(`--${name} needs at least one value.`);
  return items;
}
