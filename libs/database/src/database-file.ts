import { closeSync, openSync, readSync, type Stats, statSync } from 'node:fs';

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * The database cannot be opened and retrying will not change that: a damaged or emptied SQLite file, or a
 * PostgreSQL server that refuses this database or these credentials. Its message is the whole story for the
 * operator (which file or database, what to do); processes print it without a stack and exit.
 */
export class DatabaseUnusableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUnusableError';
  }
}

const RESTORE_ADVICE =
  'Restore it from a backup, or move it aside to start with a new, empty database ' +
  '(its API keys, storages and tasks would be gone). The service has not changed the file.';

/**
 * Refuses, before SQLite opens it, a database file that SQLite would either reject or silently treat as a new
 * database: a zero-length file (truncated, or a disk that filled up), a file without SQLite's header, and
 * something else at the file's path (a directory); and one the process may not read. An absent file is a
 * first start and passes.
 */
export function assertSqliteFileUsable(file: string): void {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw unreadable(file, error);
  }
  if (!stats.isFile()) {
    const what = stats.isDirectory() ? 'a directory' : 'not a regular file';
    throw new DatabaseUnusableError(`The database file ${file} is ${what}, not an SQLite database. ${RESTORE_ADVICE}`);
  }
  if (stats.size === 0) {
    throw new DatabaseUnusableError(
      `The database file ${file} is empty (0 bytes): it was truncated or never finished. ${RESTORE_ADVICE}`,
    );
  }
  const header = Buffer.alloc(SQLITE_HEADER.length);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw unreadable(file, error);
  }
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (!header.equals(SQLITE_HEADER)) {
    throw new DatabaseUnusableError(`The database file ${file} is not an SQLite database. ${RESTORE_ADVICE}`);
  }
}

/** The operator's message for a database file that cannot be looked at (permissions, a broken mount). */
function unreadable(file: string, error: unknown): DatabaseUnusableError {
  const code = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
  return new DatabaseUnusableError(
    `The database file ${file} cannot be read (${code}): check that the service's user may read and write it ` +
      'and its folder (DATA_DIR). The service has not changed the file.',
  );
}

/** SQLite result codes (better-sqlite3's `code`) that mean the file's contents are damaged. */
const SQLITE_DAMAGE = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CORRUPT_VTAB', 'SQLITE_CORRUPT_SEQUENCE']);

/**
 * PostgreSQL SQLSTATE classes that retrying at start can outlast: the server is starting or shutting down
 * (57P0x), too many connections (53300); and socket errors while it comes up. Everything else (a database
 * that does not exist, wrong credentials, a damaged SQLite file) fails the start at once.
 */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'SQLITE_BUSY',
]);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether opening the database again in a few seconds might succeed (a server still starting). */
export function isTransientDatabaseError(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && TRANSIENT_CODES.has(code);
}

/**
 * The operator's message for an error that opening or migrating the database raised, or the error itself when
 * it is not about the database's state. `where` names the file or the database (never a URL with a password).
 */
export function explainDatabaseError(error: unknown, where: string): unknown {
  if (error instanceof DatabaseUnusableError) return error;
  const code = codeOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  if (code && SQLITE_DAMAGE.has(code)) {
    return new DatabaseUnusableError(`The database file ${where} is damaged (SQLite: ${detail}). ${RESTORE_ADVICE}`);
  }
  if (code === '3D000' || code === '28P01' || code === '28000' || code === '42501') {
    return new DatabaseUnusableError(
      `PostgreSQL refused ${where}: ${detail}. Check DATABASE_URL (database name, user, password and grants); ` +
        'the service creates its tables but not the database itself.',
    );
  }
  return error;
}
