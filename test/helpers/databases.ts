import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * The suite runs on embedded SQLite by default. With DATABASE_URL (and REDIS_URL) in the test
 * environment it runs on PostgreSQL (and Redis): each test app gets a database of its own,
 * created from that URL and dropped afterwards.
 */
export const testPostgresUrl = process.env.DATABASE_URL || undefined;
export const testRedisUrl = process.env.REDIS_URL || undefined;

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

async function adminQuery(sql: string): Promise<void> {
  const client = new Client({ connectionString: testPostgresUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function createScratchDatabase(): Promise<ScratchDatabase> {
  if (!testPostgresUrl) throw new Error('DATABASE_URL is not set');
  const name = `atelier_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(testPostgresUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export function scratchRedisPrefix(): string {
  return `atelier-test-${randomBytes(4).toString('hex')}`;
}
