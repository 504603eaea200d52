#!/usr/bin/env node
// `npm run dashboard:client`: regenerates the dashboard's typed client (apps/dashboard/src/client) from the
// committed openapi.json with @hey-api/openapi-ts. With --check it writes to a scratch folder and fails when the
// committed client differs (run by scripts/build.mjs before the dashboard's build, like `openapi:check`).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@hey-api/openapi-ts';
import * as prettier from 'prettier';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CLIENT_FOLDER = join(root, 'apps', 'dashboard', 'src', 'client');

async function generate(path) {
  await createClient({
    input: join(root, 'openapi.json'),
    output: { path },
    plugins: ['@hey-api/typescript', '@hey-api/sdk', '@hey-api/client-fetch'],
    logs: { level: 'silent' },
  });
  // Formatted with the repository's Prettier settings, wherever the files were written (a scratch folder too).
  const options = (await prettier.resolveConfig(join(root, 'package.json'))) ?? {};
  for (const [file, text] of files(path)) {
    const target = join(path, file);
    writeFileSync(target, await prettier.format(text, { ...options, filepath: target }));
  }
}

function files(folder) {
  if (!existsSync(folder)) return new Map();
  return new Map(
    readdirSync(folder, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const path = join(entry.parentPath ?? entry.path, entry.name);
        return [relative(folder, path), readFileSync(path, 'utf8')];
      }),
  );
}

if (process.argv.includes('--check')) {
  const scratch = mkdtempSync(join(tmpdir(), 'atelier-client-'));
  try {
    await generate(scratch);
    const fresh = files(scratch);
    const committed = files(CLIENT_FOLDER);
    const stale = [...new Set([...fresh.keys(), ...committed.keys()])].filter((f) => fresh.get(f) !== committed.get(f));
    if (stale.length) {
      process.stderr.write(
        `The dashboard's client (apps/dashboard/src/client) is stale against openapi.json (${stale.join(', ')}): run \`npm run dashboard:client\`.\n`,
      );
      process.exit(1);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
} else {
  rmSync(CLIENT_FOLDER, { recursive: true, force: true });
  await generate(CLIENT_FOLDER);
  process.stderr.write(`Wrote ${relative(root, CLIENT_FOLDER)} from openapi.json.\n`);
}
