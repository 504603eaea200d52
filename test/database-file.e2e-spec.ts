import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/common';
import { dataSourceOptions, openDataSource } from '@app/database';
import { testPostgresUrl } from './helpers/databases';
import { API_MAIN, KEYS_CLI, runToEnd } from './helpers/process';

/**
 * A damaged or emptied database file is refused at start with one message that names the file and says what
 * to do: no retry loop (retrying cannot repair a file), no stack trace, and never a silent new database.
 */
describe('a damaged database at start', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function dataDirWith(contents?: Buffer): { dataDir: string; file: string } {
    const dataDir = mkdtempSync(join(tmpdir(), 'atelier-db-'));
    dirs.push(dataDir);
    const file = join(dataDir, 'atelier.sqlite');
    if (contents) writeFileSync(file, contents);
    return { dataDir, file };
  }

  /** A real database of the service whose pages after the header are overwritten: the header reads, the tables do not. */
  async function damagedDatabase(): Promise<Buffer> {
    const { dataDir, file } = dataDirWith();
    // Created and migrated as the service's first start does (the keys CLI opens only an existing database).
    await (await openDataSource(dataSourceOptions(loadConfig(env(dataDir))))).destroy();
    const bytes = readFileSync(file);
    randomBytes(bytes.length - 100).copy(bytes, 100);
    return bytes;
  }

  const env = (dataDir: string) => ({ DATA_DIR: dataDir, ADMIN_API_KEY: '', LOG_LEVEL: 'info', PORT: '0' });

  function expectOneClearMessage(output: string, file: string, problem: RegExp): void {
    expect(output).toContain(file);
    expect(output).toMatch(problem);
    expect(output).toMatch(/restore it from a backup/i);
    expect(output).not.toMatch(/Retrying/);
    expect(output).not.toMatch(/^\s+at /m); // no stack trace
    expect(output).not.toMatch(/sk_[A-Za-z0-9_-]{43}/); // no key minted into a new database
  }

  const cases: Array<[string, () => Buffer | Promise<Buffer>, RegExp]> = [
    ['a file that is not a database', () => randomBytes(8192), /is not an SQLite database/],
    ['a database whose pages are damaged', damagedDatabase, /is damaged/],
    ['a zero-length file', () => Buffer.alloc(0), /is empty \(0 bytes\)/],
  ];

  it.each(cases)('the API refuses %s at once, with one message', async (_name, contents, problem) => {
    const bytes = await contents();
    const { dataDir, file } = dataDirWith(bytes);
    const started = Date.now();
    const { code, output } = await runToEnd(API_MAIN, [], env(dataDir), 25_000);
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expectOneClearMessage(output, file, problem);
    // the file is left as it was found, for the operator to restore or inspect
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it('the API and the keys CLI refuse a directory where the file should be, with the same message', async () => {
    const { dataDir, file } = dataDirWith();
    mkdirSync(file);
    for (const [main, args] of [
      [API_MAIN, []],
      [KEYS_CLI, ['list']],
    ] as const) {
      const { code, output } = await runToEnd(main, [...args], env(dataDir), 25_000);
      expect(code).toBe(1);
      expectOneClearMessage(output, file, /is a directory, not an SQLite database/);
      expect(output).not.toMatch(/EISDIR/);
    }
    expect(statSync(file).isDirectory()).toBe(true);
  });

  it('the keys CLI refuses it the same way', async () => {
    const { dataDir, file } = dataDirWith(randomBytes(4096));
    const { code, output } = await runToEnd(KEYS_CLI, ['list'], env(dataDir), 25_000);
    expect(code).toBe(1);
    expectOneClearMessage(output, file, /is not an SQLite database/);
  });

  it.runIf(testPostgresUrl)('a PostgreSQL database that does not exist is refused without retries', async () => {
    const url = new URL(testPostgresUrl!);
    url.pathname = `/atelier_missing_${randomBytes(4).toString('hex')}`;
    const started = Date.now();
    const { code, output } = await runToEnd(
      API_MAIN,
      [],
      // A DATA_DIR of its own: the storage key file would otherwise be made in the checkout's ./data.
      { ...env(dataDirWith().dataDir), DATABASE_URL: url.toString() },
      25_000,
    );
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(output).not.toMatch(/Retrying/);
    expect(output).not.toMatch(/^\s+at /m);
    expect(output).toMatch(/database .* does not exist/);
  });
});
