import { mkdirSync, statSync } from 'node:fs';
import { Logger } from '@nestjs/common';

/** Folders already checked by this process: the database and the key file both ask, one warning is enough. */
const checked = new Set<string>();

/**
 * Creates DATA_DIR (and missing parents) with mode 0700: it holds the database and the storage key file. An
 * existing folder that group or others may enter is left as the operator made it (a volume may be shared on
 * purpose), with one warning naming the chmod to run. POSIX modes only: nothing is checked on Windows.
 */
export function ensureDataDir(dir: string): void {
  if (checked.has(dir)) return;
  checked.add(dir);
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined || process.platform === 'win32') return;
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    new Logger('DataDir').warn(
      `DATA_DIR ${dir} may be read by group or others (mode ${mode.toString(8)}); it holds the database and ` +
        `the storage key file. Run: chmod 700 ${dir}`,
    );
  }
}
