import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * The compiled file of a worker thread (`<name>.js`) for the module in `startDir` (the caller's `__dirname`).
 * From `dist/` it sits beside the caller; when the caller runs from its TypeScript source (the test runner), the
 * build's copy under the project's `dist/` is used, so `npm run build` must have run (`npm test` does).
 * @throws Error naming the missing file when neither exists.
 */
export function builtWorkerFile(startDir: string, name: string): string {
  const beside = join(startDir, `${name}.js`);
  if (existsSync(beside)) return beside;
  for (let dir = dirname(startDir); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) {
      const built = join(dir, 'dist', relative(dir, startDir), `${name}.js`);
      if (existsSync(built)) return built;
      throw new Error(`${name} not built: ${built} is missing (run npm run build)`);
    }
    if (dirname(dir) === dir) throw new Error(`${name} not built: no project folder above ${startDir}`);
  }
}
