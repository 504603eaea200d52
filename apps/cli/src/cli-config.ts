import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { usageError } from './exit-codes';

/** The variables the CLI reads from its environment. */
export interface CliEnvironment {
  ATELIER_URL?: string;
  ATELIER_KEY?: string;
  ATELIER_CONFIG?: string;
  HOME?: string;
}

/** What `atelier login` writes, and every command reads when no flag or variable says otherwise. */
export interface StoredConfig {
  url?: string;
  key?: string;
}

export interface Connection {
  url: string;
  key: string;
}

/** `ATELIER_CONFIG`, else `~/.config/atelier/config.json`. */
export function configPath(env: CliEnvironment): string {
  return env.ATELIER_CONFIG || join(env.HOME || homedir(), '.config', 'atelier', 'config.json');
}

export function readStoredConfig(path: string): StoredConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {}; // no file: nothing configured
  }
  try {
    const parsed = JSON.parse(text) as StoredConfig;
    return { url: stringOrUndefined(parsed.url), key: stringOrUndefined(parsed.key) };
  } catch {
    throw usageError(`The config file ${path} is not valid JSON: fix it or run \`atelier login\` again.`);
  }
}

const stringOrUndefined = (value: unknown) => (typeof value === 'string' && value ? value : undefined);

/** The service URL and key: flags first, then ATELIER_URL / ATELIER_KEY, then the config file. */
export function resolveConnection(flags: { url?: string; key?: string }, env: CliEnvironment): Connection {
  const stored = flags.url && flags.key ? {} : readStoredConfig(configPath(env));
  const url = flags.url || env.ATELIER_URL || stored.url;
  const key = flags.key || env.ATELIER_KEY || stored.key;
  if (!url) throw usageError('No service URL: pass --url, set ATELIER_URL or run `atelier login --url URL`.');
  if (!key) {
    throw usageError('No API key: pipe it with --key-stdin, set ATELIER_KEY or run `atelier login --url URL`.');
  }
  return { url: checkUrl(url), key };
}

export function checkUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw usageError(`The service URL "${url}" is not a URL: give one like http://127.0.0.1:3000.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw usageError(`The service URL must start with http:// or https://, not ${parsed.protocol}//.`);
  }
  return url.replace(/\/+$/, '');
}

/**
 * Writes the config file readable by its owner only (0600, its folder 0700): it holds a secret. The text goes to
 * a new temporary file created 0600 beside it (`wx`: never one that exists, nor a link), which then replaces the
 * file by a rename: the key is never in a file others may read, even for a moment, an existing file's looser
 * mode is not kept, a link at the path is replaced rather than followed, and a crash leaves the old file whole.
 */
export function writeStoredConfig(path: string, config: StoredConfig): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const partial = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    writeFileSync(partial, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(partial, path);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}
