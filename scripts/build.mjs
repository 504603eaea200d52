#!/usr/bin/env node
// `npm run build`: compiles dist/. One `nest build api` compiles every app and library (tsconfig.build.json
// includes them all but the dashboard), the worker included; then Vite builds the dashboard into dist/dashboard. With --if-changed (prestart, prekeys, pretest, prebench) it builds
// only when the sources, settings or lockfile changed since the last build that succeeded (build-stamp.mjs).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from './build-stamp.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ifChanged = process.argv.includes('--if-changed');

function compile() {
  process.stderr.write(`Building dist/${ifChanged ? ' (not built from the current sources yet)' : ''}...\n`);
  // Nest's CLI (not plain tsc): it rewrites the @app/* path aliases in the emitted JavaScript.
  const nest = createRequire(import.meta.url).resolve('@nestjs/cli/bin/nest.js');
  const result = spawnSync(process.execPath, [nest, 'build', 'api'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write('The build failed; dist/ is not current and the next start builds again.\n');
    process.exit(result.status ?? 1);
  }
  // The dashboard (apps/dashboard -> dist/dashboard): its typed client must match openapi.json, then Vite.
  for (const args of [
    [join(root, 'scripts', 'dashboard-client.mjs'), '--check'],
    [
      join(root, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '-c',
      'apps/dashboard/vite.config.mts',
      '--logLevel',
      'warn',
    ],
  ]) {
    const step = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
    if (step.status !== 0) {
      process.stderr.write('The dashboard build failed; dist/ is not current and the next start builds again.\n');
      process.exit(step.status ?? 1);
    }
  }
}

const started = Date.now();
const compiled = build({ root, ifChanged, compile });
process.stderr.write(
  compiled
    ? `Built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`
    : 'dist/ is current: no build needed (`npm run build` forces one).\n',
);
