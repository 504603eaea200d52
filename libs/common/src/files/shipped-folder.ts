import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The absolute path of a folder the service ships beside its code (`libs/<lib>/<folder>`: CMYK profiles, sample
 * images), found by walking up from `startDir` (the caller's `__dirname`), so that it is found from the TypeScript
 * source and from `dist/libs/...` alike: the build does not copy data files into dist/, so the folder must sit beside
 * `libs/` at runtime (the Dockerfile copies each one).
 * @param relative the folder's path from the project root, e.g. `libs/image-pipeline/icc`
 * @param what names the data in the error, e.g. `CMYK profiles`
 * @throws Error when no ancestor of `startDir` holds the folder.
 */
export function locateShippedFolder(relative: string, startDir: string, what: string): string {
  for (let dir = startDir; ; dir = dirname(dir)) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) {
      throw new Error(`${what}: no ${relative} folder in ${startDir} or any folder above it`);
    }
  }
}
