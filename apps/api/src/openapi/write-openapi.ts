import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '@app/common';
import { createApp } from '../app.factory';
import { buildOpenApiDocument } from './openapi';

/** The committed document, generated from the code; CI fails when the two differ. */
export const OPENAPI_FILE = resolve(process.cwd(), 'openapi.json');

/** Renders the document of a throw-away app (embedded database in a temporary folder). */
export async function renderOpenApi(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'atelier-openapi-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, ADMIN_API_KEY: 'x'.repeat(32), LOG_LEVEL: 'silent' });
    const app = await createApp(config);
    try {
      return `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`;
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const rendered = await renderOpenApi();
  if (process.argv.includes('--check')) {
    const committed = (() => {
      try {
        return readFileSync(OPENAPI_FILE, 'utf8');
      } catch {
        return '';
      }
    })();
    if (committed !== rendered) {
      process.stderr.write('openapi.json is out of date: run `npm run openapi` and commit the result.\n');
      process.exit(1);
    }
    process.stdout.write('openapi.json is current.\n');
    return;
  }
  writeFileSync(OPENAPI_FILE, rendered);
  process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
    process.exit(1);
  });
}
