import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { ensureDataDir, type AppConfig } from '@app/common';
import { assertSqliteFileUsable, DatabaseUnusableError, explainDatabaseError } from './database-file';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/** Arbitrary constant naming the PostgreSQL advisory lock held while migrating. */
const MIGRATION_LOCK_ID = 4_720_131;

/**
 * Whether opening may create the database. The service does (`create`: the first start makes the SQLite file, or
 * the tables in an empty PostgreSQL database). The keys CLI opens only one the service has made (`existing`):
 * pointed at the wrong DATA_DIR it would otherwise make an empty database, and keys nobody's service reads.
 */
export type DatabaseOpening = 'create' | 'existing';

const TO_CREATE_IT =
  'This command does not create a database: point DATA_DIR (or DATABASE_URL) at the one the service uses, or ' +
  'start the service once (`npm start`) to create it.';

/**
 * SQLite under DATA_DIR by default; PostgreSQL when DATABASE_URL is set. Never `synchronize`. With `existing`, a
 * missing SQLite file is refused here, before DATA_DIR or the file is made.
 */
export function dataSourceOptions(config: AppConfig, opening: DatabaseOpening = 'create'): DataSourceOptions {
  const common = { entities: ENTITIES, migrations: MIGRATIONS, synchronize: false, migrationsRun: false } as const;
  if (config.databaseUrl) {
    return { ...common, type: 'postgres', url: config.databaseUrl, extra: { max: 10 } };
  }
  const database = join(config.dataDir, 'atelier.sqlite');
  if (opening === 'existing' && !existsSync(database)) {
    throw new DatabaseUnusableError(`No Atelier database at ${database} (DATA_DIR=${config.dataDir}). ${TO_CREATE_IT}`);
  }
  ensureDataDir(config.dataDir);
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
export function describeDatabase(options: DataSourceOptions): string {
  if (options.type !== 'postgres') return String(options.database);
  const url = new URL(options.url ?? '');
  return `database "${decodeURIComponent(url.pathname.slice(1))}" on ${url.host}`;
}

/**
 * Opens the database and brings its schema up to date. On PostgreSQL an advisory lock makes
 * several processes starting together migrate one after the other. A database that cannot be used as it is
 * (damaged file, unknown database, refused credentials, or with `existing` one without the service's tables)
 * fails with a DatabaseUnusableError.
 */
export async function openDataSource(
  options: DataSourceOptions,
  opening: DatabaseOpening = 'create',
): Promise<DataSource> {
  try {
    return await openAndMigrate(options, opening);
  } catch (error) {
    throw explainDatabaseError(error, describeDatabase(options));
  }
}

/** Whether the service has migrated this database at least once (TypeORM's table of migrations run). */
async function madeByTheService(dataSource: DataSource): Promise<boolean> {
  const runner = dataSource.createQueryRunner();
  try {
    return await runner.hasTable(dataSource.options.migrationsTableName ?? 'migrations');
  } finally {
    await runner.release();
  }
}

async function openAndMigrate(options: DataSourceOptions, opening: DatabaseOpening): Promise<DataSource> {
  const dataSource = await new DataSource(options).initialize();
  try {
    if (opening === 'existing' && !(await madeByTheService(dataSource))) {
      const where =
        options.type === 'postgres'
          ? `The PostgreSQL ${describeDatabase(options)} (DATABASE_URL)`
          : `The database file ${describeDatabase(options)} (DATA_DIR)`;
      throw new DatabaseUnusableError(`${where} has no Atelier tables. ${TO_CREATE_IT}`);
    }
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
