import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * What the deployment files (docker-compose.yml, the Dockerfile, deploy/) are checked against: the project's
 * own sources of truth, read from the repository, so that a file that drifts from the code fails a spec.
 */
export const REPO_ROOT = resolve(__dirname, '..', '..');

/** A file of the repository as text. */
export function readRepoFile(name: string): string {
  return readFileSync(resolve(REPO_ROOT, name), 'utf8');
}

/**
 * Variables documented in docs/configuration.md: every name in backticks in the first column of a table row, and
 * those that open a list item as `NAME=value` ("Variables Atelier does not read").
 */
export function documentedVariables(): Set<string> {
  const names = new Set<string>();
  for (const line of readRepoFile('docs/configuration.md').split('\n')) {
    const first = /^\| ([^|]+) \|/.exec(line)?.[1] ?? '';
    for (const [, name] of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(name);
    const item = /^- `([A-Z][A-Z0-9_]*)=/.exec(line);
    if (item) names.add(item[1]);
  }
  return names;
}

/** Variables the typed configuration reads: every quoted upper-case name in libs/common/src/config (not specs). */
export function configVariables(): Set<string> {
  const folder = resolve(REPO_ROOT, 'libs/common/src/config');
  const names = new Set<string>();
  for (const file of readdirSync(folder)) {
    if (!file.endsWith('.ts') || file.endsWith('.spec.ts')) continue;
    const text = readFileSync(join(folder, file), 'utf8');
    for (const [, name] of text.matchAll(/'([A-Z][A-Z0-9_]{2,})'/g)) names.add(name);
  }
  return names;
}

/**
 * Set in the environment of Atelier's processes but read by glibc or Node rather than by `loadConfig`;
 * docs/configuration.md lists them under "Variables Atelier does not read".
 */
export const RUNTIME_VARIABLES = new Set(['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_', 'GLIBC_TUNABLES']);

/** How package.json starts a process: the environment it sets, node's options and the entry file. */
export interface StartScript {
  env: Record<string, string>;
  nodeOptions: string[];
  entry: string;
}

/** Parses `npm start` (`api`) or `npm run start:worker` (`worker`) from package.json. */
export function startScript(app: 'api' | 'worker'): StartScript {
  const scripts = (JSON.parse(readRepoFile('package.json')) as { scripts: Record<string, string> }).scripts;
  const words = scripts[app === 'api' ? 'start' : 'start:worker'].split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const word = words.shift()!;
    const equals = word.indexOf('=');
    env[word.slice(0, equals)] = word.slice(equals + 1);
  }
  if (words.shift() !== 'node') throw new Error(`The ${app} start script does not run node`);
  const entry = words.pop()!;
  return { env, nodeOptions: words, entry };
}
