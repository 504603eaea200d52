import { join } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { ensureDataDir, type AppConfig } from '@app/common';
import { assertSqliteFileUsable, explainDatabaseError } from './database-file';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** Arbitrary constant naming the PostgreSQL advisory lock held while migrating. */
const MIGRATION_LOCK_ID = 4_720_131;

/** SQLite under DATA_DIR by default; PostgreSQL when DATABASE_URL is set. Never `synchronize`. */
export function dataSourceOptions(config: AppConfig): DataSourceOptions {
  const common = { entities: ENTITIES, migrations: MIGRATIONS, synchronize: false, migrationsRun: false } as const;
  if (config.databaseUrl) {
    return { ...common, type: 'postgres', url: config.databaseUrl, extra: { max: 10 } };
  }
  ensureDataDir(config.dataDir);
  const database = join(config.dataDir, 'atelier.sqlite');
  assertSqliteFileUsable(database);
  return {
    ...common,
    type: 'better-sqlite3',
    database,
    enableWAL: true,
    timeout: 10_000,
  };
}

/** The file, or the PostgreSQL database and server, in words for the operator (no password). */
function describeDatabase(options: DataSourceOptions): string {
  if (options.type !== 'postgres') return String(options.database);
  const url = new URL(options.url ?? '');
  return `database "${decodeURIComponent(url.pathname.slice(1))}" on ${url.host}`;
}

/**
 * Opens the database and brings its schema up to date. On PostgreSQL an advisory lock makes
 * several processes starting together migrate one after the other. A database that cannot be used as it is
 * (damaged file, unknown database, refused credentials) fails with a DatabaseUnusableError.
 */
export async function openDataSource(options: DataSourceOptions): Promise<DataSource> {
  try {
    return await openAndMigrate(options);
  } catch (error) {
    throw explainDatabaseError(error, describeDatabase(options));
  }
}

async function openAndMigrate(options: DataSourceOptions): Promise<DataSource> {
  const dataSource = await new DataSource(options).initialize();
  try {
    if (dataSource.options.type === 'postgres') {
      const runner = dataSource.createQueryRunner();
      await runner.connect();
      try {
        await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
        await dataSource.runMigrations({ transaction: 'each' });
      } finally {
        await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
        await runner.release();
      }
    } else {
      await dataSource.runMigrations({ transaction: 'each' });
    }
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}
