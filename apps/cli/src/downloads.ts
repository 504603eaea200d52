import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ApiClient } from './api-client';

/** The last segment of a URL's path: the name a result is saved under in a folder. */
export const fileNameOf = (url: string) => basename(new URL(url).pathname) || 'result';

/** True when `target` names a folder: one that exists, or a path ending in `/`. */
export const isFolderTarget = (target: string) =>
  target.endsWith('/') || (existsSync(target) && statSync(target).isDirectory());

/**
 * Downloads `url` to `target`: into it under `name` when it is a folder, else as that file (parent folders
 * made). Returns the path written.
 */
export async function saveDownload(
  client: ApiClient,
  url: string,
  target: string,
  name = fileNameOf(url),
): Promise<string> {
  const path = isFolderTarget(target) ? join(target, name) : target;
  const bytes = await client.download(url);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
  return path;
}
