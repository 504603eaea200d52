import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_ADMIN_KEY_FILE } from '../apps/api/src/auth/bootstrap-key.service';
import { createScratchDatabase, testPostgresUrl, testRedisUrl } from './helpers/databases';
import { call } from './helpers/http';
import {
  API_MAIN,
  KEYS_CLI,
  runToEnd,
  startApiProcess,
  startProcess,
  waitForOutput,
  WORKER_MAIN,
} from './helpers/process';
import { scratchEnvironment } from './helpers/test-app';

const SECRET = /\bsk_[A-Za-z0-9_-]{43}\b/g;
/** What a terminal showed, as text: colours removed, `\r\n` as `\n`. */
const screenText = (output: string) => output.replace(/\u001b\[[0-9;]*m/g, '').replace(/\r\n/g, '\n');
/** The JSON lines of a process's standard output, parsed: all of them must be JSON. */
const jsonLines = (output: string) =>
  output
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { level: string; context?: string; msg: string });
const MORE_KEYS = 'npm run keys -- create --name NAME --scopes admin';

describe('the built service as a new user starts it', () => {
  let env: Record<string, string | undefined>;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const scratch = await scratchEnvironment({ ADMIN_API_KEY: '', LOG_LEVEL: 'warn' });
    env = scratch.env;
    cleanup = scratch.cleanup;
  });
  afterAll(() => cleanup());

  it('creates an admin key at first start and shows it on a terminal, last, once, and never again', async () => {
    const file = join(env.DATA_DIR!, FIRST_ADMIN_KEY_FILE);
    const first = await startApiProcess(env, { terminal: true });
    let screen: string;
    try {
      await waitForOutput(first, 'More keys:');
      // A request answered after the notice: the process has written whatever it writes at start.
      expect((await fetch(`${first.url}/health/live`)).ok).toBe(true);
      screen = screenText(first.output());
    } finally {
      await first.stop();
    }
    const printed = screen.match(SECRET) ?? [];
    expect(printed).toHaveLength(1);
    const key = printed[0] ?? '';
    // Readable lines, not JSON; the listening line although LOG_LEVEL is warn; the key below it, and nothing after.
    expect(screen).not.toMatch(/^\{/m);
    const listening = screen.indexOf(`Main: Atelier API listening on ${first.url} (Swagger UI at ${first.url}/docs)`);
    expect(listening).toBeGreaterThanOrEqual(0);
    expect(listening).toBeLessThan(screen.indexOf(key));
    expect(screen.slice(screen.indexOf('More keys:'))).toMatch(/^More keys: [^\n]*\n\s*$/);
    expect(screen).toContain(`A copy is in ${file} (readable by you alone)`);
    expect(screen).toContain(`rm ${file}`);
    expect(readFileSync(file, 'utf8')).toBe(`${key}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = await startApiProcess(env);
    try {
      expect(second.output()).not.toMatch(/sk_[A-Za-z0-9_-]{43}/);
      expect(second.output()).toContain(`The first admin API key is still in ${file}`);
      const res = await call(second.url, 'GET', '/v1/keys', { key });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([
        expect.objectContaining({ name: 'bootstrap admin', scopes: ['admin'], account: 'default' }),
      ]);
    } finally {
      await second.stop();
    }
    expect(readFileSync(file, 'utf8')).toBe(`${key}\n`);
  });

  it('serves the Swagger UI and the OpenAPI document without a key', async () => {
    const api = await startApiProcess(env);
    try {
      const page = await fetch(`${api.url}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toContain('swagger-ui');
      const init = await fetch(`${api.url}/docs/swagger-ui-init.js`);
      expect(init.status).toBe(200);
      const doc = (await (await fetch(`${api.url}/docs/openapi.json`)).json()) as any;
      expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining(['/v1/keys', '/v1/keys/{id}', '/health/live', '/health/ready']),
      );
      expect(Object.keys(doc.paths).some((path) => path.startsWith('/v1-beta1'))).toBe(false);
    } finally {
      await api.stop();
    }
  });

  it('manages keys from the command line against the same database', async () => {
    const created = await runToEnd(
      KEYS_CLI,
      ['create', '--name', 'cli key', '--scopes', 'storage,image_editing', '--quota', '10'],
      env,
    );
    expect(created.code).toBe(0);
    const secret = created.output.match(/\bsk_[A-Za-z0-9_-]{43}\b/)?.[0];
    expect(secret).toBeDefined();
    const id = created.output.match(/Created key (\d+)/)?.[1];

    const listed = await runToEnd(KEYS_CLI, ['list', '--json'], env);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toBe(
      env.DATABASE_URL
        ? `Using PostgreSQL database "${new URL(env.DATABASE_URL).pathname.slice(1)}" on ${new URL(env.DATABASE_URL).host}\n`
        : `Using the SQLite database ${join(env.DATA_DIR!, 'atelier.sqlite')}\n`,
    );
    const keys = JSON.parse(listed.stdout);
    expect(keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: Number(id), name: 'cli key', quota: 10, scopes: ['storage', 'image_editing'] }),
      ]),
    );
    expect(listed.output).not.toContain(secret);

    const api = await startApiProcess(env);
    try {
      expect((await call(api.url, 'GET', '/v1/keys', { key: secret })).status).toBe(403);
      const revoked = await runToEnd(KEYS_CLI, ['revoke', String(id)], env);
      expect(revoked.code).toBe(0);
      expect(revoked.output).toContain(`Revoked key ${id}`);
      // The running API keeps a key it has seen for LOOKUP_CACHE_MS (1 s by default), so a revocation made by
      // another process applies within that time: ask until it does, for at most 5 s.
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 401; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await call(api.url, 'GET', '/v1/keys', { key: secret })).status;
        expect([401, 403]).toContain(status);
      }
      expect(status).toBe(401);
    } finally {
      await api.stop();
    }

    const bad = await runToEnd(KEYS_CLI, ['create', '--name', 'x', '--scopes', 'root'], env);
    expect(bad.code).toBe(1);
    expect(bad.output).toContain('unknown scope(s): root');
    const unnamed = await runToEnd(KEYS_CLI, ['create', '--scopes', 'storage', '--account', 'Bad Name'], env);
    expect(unnamed.code).toBe(1);
    expect(unnamed.output).toContain('name must be a string');
    expect(unnamed.output).toContain('account must be 1 to 64 lower-case letters, digits, "_" or "-"');
    const missing = await runToEnd(KEYS_CLI, ['revoke', '999999'], env);
    expect(missing.code).toBe(1);
    expect(missing.output).toContain('API key not found.');
    // ids are 32-bit in the database (PostgreSQL `integer`): a larger one is a usage error, not a database error
    const huge = await runToEnd(KEYS_CLI, ['revoke', '99999999999'], env);
    expect(huge.code).toBe(1);
    expect(huge.output).toContain('a key id is at most 2147483647');
  }, 60_000); // six runs of the CLI, each starting Nest and the database: seconds each on a busy machine

  it('refuses to start with a bad configuration and lists every problem', async () => {
    const result = await runToEnd(API_MAIN, [], {
      ...env,
      PORT: 'eighty',
      RATE_LIMIT_PER_SECOND: '0',
      DATABASE_URL: 'mysql://x',
      FETCH_ALLOW_HOSTS: '10.0.0.0/99',
    });
    expect(result.code).toBe(1);
    expect(result.output).toContain('Invalid configuration');
    for (const variable of ['PORT', 'RATE_LIMIT_PER_SECOND', 'DATABASE_URL', 'FETCH_ALLOW_HOSTS']) {
      expect(result.output).toContain(`- ${variable}:`);
    }
  });
});

describe('the first admin key without a terminal (docker logs, journald, CI)', () => {
  let env: Record<string, string | undefined>;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const scratch = await scratchEnvironment({ ADMIN_API_KEY: '', LOG_LEVEL: 'error' });
    env = scratch.env;
    cleanup = scratch.cleanup;
  });
  afterAll(() => cleanup());

  it('logs no secret but where its file is; later starts say the file is still there, or how to make a key', async () => {
    const file = join(env.DATA_DIR!, FIRST_ADMIN_KEY_FILE);
    const first = await startApiProcess(env);
    await first.stop();
    expect(first.output()).not.toMatch(/sk_[A-Za-z0-9_-]{43}/);
    // At LOG_LEVEL=error: the line that says where the service listens, and the one that says where the key is.
    expect(jsonLines(first.stdout())).toEqual([
      expect.objectContaining({
        level: 'info',
        context: 'Main',
        msg: `Atelier API listening on ${first.url} (Swagger UI at ${first.url}/docs)`,
      }),
      expect.objectContaining({
        level: 'info',
        context: 'BootstrapKey',
        msg: expect.stringContaining(`it is in ${file}, readable by this service's user alone`),
      }),
    ]);
    expect(first.stderr()).toBe('');
    const key = readFileSync(file, 'utf8').trim();
    expect(key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = await startApiProcess({ ...env, LOG_LEVEL: 'warn' });
    try {
      expect((await call(second.url, 'GET', '/v1/keys', { key })).status).toBe(200);
    } finally {
      await second.stop();
    }
    expect(second.output()).not.toContain(key);
    expect(jsonLines(second.stdout()).map((line) => line.msg)).toEqual([
      `Atelier API listening on ${second.url} (Swagger UI at ${second.url}/docs)`,
      `The first admin API key is still in ${file}: once it is stored elsewhere, delete that file.`,
    ]);

    rmSync(file);
    const third = await startApiProcess({ ...env, LOG_LEVEL: 'info' });
    await third.stop();
    expect(third.output()).toContain(`To make another: ${MORE_KEYS}`);
    expect(third.output()).not.toContain('still in');
    expect(existsSync(file)).toBe(false);
  });
});

describe('the keys CLI pointed at the wrong database', () => {
  it('refuses a DATA_DIR without the service database, names it, and creates nothing there', async () => {
    const scratch = await scratchEnvironment({ LOG_LEVEL: 'warn' });
    try {
      const missing = join(scratch.env.DATA_DIR!, 'not-here');
      const empty = join(scratch.env.DATA_DIR!, 'empty');
      mkdirSync(empty);
      for (const dataDir of [missing, empty]) {
        const result = await runToEnd(KEYS_CLI, ['create', '--name', 'x', '--scopes', 'admin'], { DATA_DIR: dataDir });
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toContain(
          `No Atelier database at ${join(dataDir, 'atelier.sqlite')} (DATA_DIR=${dataDir})`,
        );
        expect(result.stderr).toContain('start the service once (`npm start`) to create it');
        expect(result.output).not.toMatch(/sk_[A-Za-z0-9_-]{43}/);
      }
      expect(existsSync(missing)).toBe(false);
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      await scratch.cleanup();
    }
  });

  it.runIf(testPostgresUrl)(
    'refuses a PostgreSQL database without the service tables, and leaves it empty',
    async () => {
      const database = await createScratchDatabase();
      try {
        const url = new URL(database.url);
        url.password = 'not-shown-anywhere';
        const result = await runToEnd(KEYS_CLI, ['list'], { DATABASE_URL: url.toString(), DATA_DIR: '/nonexistent' });
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(
          `The PostgreSQL database "${url.pathname.slice(1)}" on ${url.host} (DATABASE_URL) has no Atelier tables.`,
        );
        expect(result.stderr).toContain('`npm start`');
        expect(result.output).not.toContain('not-shown-anywhere');
        const client = new Client({ connectionString: database.url });
        await client.connect();
        try {
          const tables = await client.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
          );
          expect(tables.rows).toEqual([]);
        } finally {
          await client.end();
        }
      } finally {
        await database.drop();
      }
    },
  );
});

describe('the data folder and the storage key file', () => {
  it('warns about a DATA_DIR open to others, and refuses a key file open to them, naming it and the chmod', async () => {
    const scratch = await scratchEnvironment({ LOG_LEVEL: 'warn' });
    const dataDir = scratch.env.DATA_DIR!;
    const keyFile = join(dataDir, 'storage-encryption.key');
    try {
      chmodSync(dataDir, 0o755);
      const api = await startApiProcess(scratch.env);
      await api.stop();
      expect(api.output()).toContain(`chmod 700 ${dataDir}`);
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);

      chmodSync(keyFile, 0o644);
      const refused = await runToEnd(API_MAIN, [], scratch.env);
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('Invalid configuration');
      expect(refused.output).toContain(`${keyFile} may be read or written by group or others`);
      expect(refused.output).toContain(`chmod 600 ${keyFile}`);
      expect(refused.output).not.toMatch(/\n\s+at /);
      if (scratch.env.REDIS_URL) {
        const worker = await runToEnd(WORKER_MAIN, [], scratch.env);
        expect(worker.code).toBe(1);
        expect(worker.output).toContain(`chmod 600 ${keyFile}`);
      }
    } finally {
      await scratch.cleanup();
    }
  }, 90_000);
});

describe('the worker process', () => {
  it('refuses to start without REDIS_URL and says why', async () => {
    const result = await runToEnd(WORKER_MAIN, [], { DATA_DIR: '/tmp/atelier-worker-no-redis' });
    expect(result.code).toBe(2);
    expect(result.output).toContain('needs REDIS_URL');
  });

  it.runIf(testRedisUrl)('connects to its queue on Redis and stops cleanly on SIGTERM', async () => {
    const scratch = await scratchEnvironment({ LOG_LEVEL: 'info' });
    const worker = startProcess(WORKER_MAIN, [], scratch.env);
    try {
      const deadline = Date.now() + 30_000;
      while (!worker.output().includes('worker connected') && Date.now() < deadline) {
        if (worker.child.exitCode !== null) break;
        await new Promise((done) => setTimeout(done, 100));
      }
      const messages = worker
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line).msg as string);
      expect(messages).toContain(
        `Atelier worker connected to queue "image-edit" (prefix "${scratch.env.REDIS_PREFIX}")`,
      );
      const redis = new Redis(testRedisUrl!);
      try {
        const clients = await redis.client('LIST');
        expect(String(clients)).toContain('atelier-worker');
      } finally {
        redis.disconnect();
      }
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      expect(worker.output()).toContain('Atelier worker stopped (SIGTERM)');
    } finally {
      await worker.stop();
      await scratch.cleanup();
    }
  });

  it.runIf(testRedisUrl)('says it is connected at LOG_LEVEL=error, and nothing else', async () => {
    const scratch = await scratchEnvironment({ LOG_LEVEL: 'error' });
    const worker = startProcess(WORKER_MAIN, [], scratch.env);
    try {
      await waitForOutput(worker, 'worker connected');
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      expect(jsonLines(worker.stdout())).toEqual([
        expect.objectContaining({
          level: 'info',
          context: 'Worker',
          msg: `Atelier worker connected to queue "image-edit" (prefix "${scratch.env.REDIS_PREFIX}")`,
        }),
      ]);
    } finally {
      await worker.stop();
      await scratch.cleanup();
    }
  });
});
