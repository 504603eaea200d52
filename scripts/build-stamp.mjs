// Whether dist/ was built from the sources as they are now: a hash of every build input, written into dist/
// after a build that succeeded, compared before the next one. `npm start`, `npm run keys`, `npm test` and
// `npm run bench` build only when it differs (scripts/build.mjs).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** The stamp, inside dist/ so that deleting dist/ also deletes it. */
export const STAMP_FILE = join('dist', '.build-stamp.json');

/** What the compiler reads besides the sources: its settings and the installed packages (the lockfile). */
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package-lock.json'];
/** Folders of the sources that tsconfig.build.json compiles: every .ts file but the unit specs. */
const SOURCE_FOLDERS = ['apps', 'libs'];
/** The dashboard (Vite, apps/dashboard): its pages, styles, page template and settings; and the API document its
 * typed client is generated from (a change there must re-check the client). */
const DASHBOARD_FOLDER = 'apps/dashboard';
const DASHBOARD_FILE = /\.(ts|tsx|mts|css|html|json|svg|png)$/;
const DASHBOARD_INPUTS = ['openapi.json'];
const isSource = (path) =>
  path.startsWith(`${DASHBOARD_FOLDER}/`)
    ? DASHBOARD_FILE.test(path)
    : path.endsWith('.ts') && !path.endsWith('.spec.ts');

/** Files every build writes; a dist/ without one of them is not current, whatever its stamp says. */
export const ENTRY_POINTS = [
  'dist/apps/api/src/main.js',
  'dist/apps/api/src/cli/keys-cli.js',
  'dist/apps/api/src/openapi/write-openapi.js',
  'dist/apps/worker/src/main.js',
  'dist/apps/cli/src/main.js',
  'dist/dashboard/index.html',
];

/** The build inputs under `root`, relative, with `/` separators, in a stable order. */
export function buildInputs(root) {
  const sources = SOURCE_FOLDERS.flatMap((folder) =>
    existsSync(join(root, folder))
      ? readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) =>
            relative(root, join(entry.parentPath ?? entry.path, entry.name))
              .split(sep)
              .join('/'),
          )
          .filter(isSource)
      : [],
  );
  const settings = [...SETTINGS, ...DASHBOARD_INPUTS].filter((file) => existsSync(join(root, file)));
  return [...settings, ...sources].sort();
}

/** SHA-256 over each input's path and content: a change, an added or a removed file changes it. */
export function inputsHash(root) {
  const hash = createHash('sha256');
  for (const file of buildInputs(root)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * When each entry point was written. A build by other means (`npx nest build api`, `npm run start:dev`) rewrites
 * them without a stamp; their times then differ from the stamp's, and the next start builds.
 */
function entryPointTimes(root) {
  return Object.fromEntries(ENTRY_POINTS.map((file) => [file, statSync(join(root, file)).mtimeMs]));
}

/** Whether dist/ under `root` holds a complete build of exactly these inputs, written by {@link build}. */
export function isCurrent(root, hash = inputsHash(root)) {
  try {
    const stamp = JSON.parse(readFileSync(join(root, STAMP_FILE), 'utf8'));
    return stamp.inputs === hash && JSON.stringify(stamp.entryPoints) === JSON.stringify(entryPointTimes(root));
  } catch {
    return false; // no stamp, or an entry point missing
  }
}

/**
 * Runs `compile` (which throws when the build fails) unless `ifChanged` and dist/ is current. The stamp is removed
 * before compiling and written only after it succeeded, with the hash of the inputs as they were when it started:
 * a failed or interrupted build, or a source edited during the build, leaves dist/ not current.
 * Returns whether it compiled.
 */
export function build({ root, ifChanged, compile }) {
  const hash = inputsHash(root);
  if (ifChanged && isCurrent(root, hash)) return false;
  rmSync(join(root, STAMP_FILE), { force: true });
  compile();
  const stamp = { inputs: hash, entryPoints: entryPointTimes(root) };
  writeFileSync(join(root, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
  return true;
}
