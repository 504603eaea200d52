import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';

/** The folder `npm run build` writes the dashboard to (Vite, apps/dashboard/vite.config.mts). */
export const DASHBOARD_FOLDER = join('dist', 'dashboard');

/** Content types of what Vite emits. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** One file to send: bytes, content type, cache policy. */
export interface DashboardFile {
  body: Buffer;
  type: string;
  cache: string;
}

/** Hashed assets never change under their name; index.html names the current ones and is checked every time. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const NO_CACHE = 'no-cache';

/**
 * Resolves a path under /dashboard to a built file: an existing file under the build folder, else index.html for
 * client routes (no extension), else undefined (a missing asset is a 404, not the page). Never leaves the folder.
 */
export function resolveDashboardFile(root: string, path: string): DashboardFile | undefined {
  const relative = normalize(decodeURIComponent(path).replace(/^\/+/, ''));
  if (relative.startsWith('..') || relative.includes(`${sep}..${sep}`) || relative.includes('\0')) return undefined;
  const file = join(root, relative);
  if (relative !== '.' && relative !== '' && existsSync(file) && statSync(file).isFile()) {
    const isAsset = relative.startsWith(`assets${sep}`);
    return {
      body: readFileSync(file),
      type: TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      cache: isAsset ? IMMUTABLE : NO_CACHE,
    };
  }
  if (extname(relative) !== '') return undefined;
  const index = join(root, 'index.html');
  if (!existsSync(index)) return undefined;
  return { body: readFileSync(index), type: TYPES['.html'], cache: NO_CACHE };
}
