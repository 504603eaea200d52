import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** Process-level tests run the built service; `npm test` builds it first (the `pretest` script). */
export default function setup(): void {
  if (!existsSync(resolve(process.cwd(), 'dist/apps/api/src/main.js'))) {
    throw new Error('dist/ is missing: run the tests with `npm test`, which builds the service first.');
  }
}
