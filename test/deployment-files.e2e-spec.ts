import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createConnection } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig, METRICS_READY_PATH } from '@app/common';
import {
  configVariables,
  documentedVariables,
  readRepoFile as read,
  REPO_ROOT,
  RUNTIME_VARIABLES,
  startScript,
} from './helpers/deployment-files';
import { freePort } from './helpers/process';

/**
 * The deployment files cannot run here (no Docker engine), so what makes them safe is checked in their text:
 * no secret with a default, the internal object store out of tenants' reach and on loopback only, a temporary
 * bucket user restricted to its prefix, pinned images, an image build that installs exactly the lockfile, the
 * reverse proxy as the only way in, and environments and start options that agree with the code.
 */
interface ComposeService {
  image?: string;
  ports?: string[];
  environment?: Record<string, string>;
  command?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
}
const composeText = read('docker-compose.yml');
const compose = parse(composeText) as {
  services: Record<string, ComposeService>;
  'x-atelier-env': Record<string, string>;
};
const services = compose.services;
const env = compose['x-atelier-env'];

describe('docker-compose.yml', () => {
  it('has no default for any password or key: each must be set, or compose refuses to start', () => {
    const secrets = [
      'POSTGRES_PASSWORD',
      'REDIS_PASSWORD',
      'MINIO_ROOT_PASSWORD',
      'TEMP_BUCKET_SECRET_KEY',
      'ADMIN_API_KEY',
      'STORAGE_ENCRYPTION_KEY',
    ];
    for (const name of secrets) {
      const uses = composeText.match(new RegExp(`\\$\\{${name}[^}]*\\}`, 'g')) ?? [];
      expect(uses.length, name).toBeGreaterThan(0);
      for (const use of uses) expect(use, name).toMatch(new RegExp(`^\\$\\{${name}:\\?`));
    }
  });

  it('pins every image to a version (and, where the file gives one, to a well-formed digest)', () => {
    for (const [name, service] of Object.entries(services)) {
      if (!service.image || service.image.startsWith('atelier:')) continue;
      const [reference, digest] = service.image.split('@');
      const tag = reference.split(':')[1] ?? '';
      expect(tag, name).toMatch(/\d/);
      expect(tag, name).not.toMatch(/latest/);
      if (digest !== undefined) expect(digest, name).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  it('gives the API and the worker the same PUBLIC_BASE_URL (result_url, webhooks and sample inputs name it)', () => {
    // As compose reads the file: `<<: *atelier-env` merges the shared entries into each service's environment.
    const merged = (parse(composeText, { merge: true }) as { services: Record<string, ComposeService> }).services;
    for (const name of ['api', 'worker']) {
      expect(merged[name].environment?.PUBLIC_BASE_URL, name).toBe(env.PUBLIC_BASE_URL);
    }
    // The proxy's address: the domain Caddy serves (checked against the Caddyfile below).
    expect(env.PUBLIC_BASE_URL).toMatch(/^https:\/\/\$\{ATELIER_DOMAIN:-[^}]+\}$/);
  });

  it('publishes the object store on the host loopback only', () => {
    const ports = services.minio.ports ?? [];
    expect(ports.length).toBeGreaterThan(0);
    for (const port of ports) expect(port).toMatch(/^127\.0\.0\.1:/);
  });

  it('does not open the internal store to tenants’ storages and downloads', () => {
    expect(env.FETCH_ALLOW_HOSTS).not.toMatch(/minio/);
    expect(env.TEMP_BUCKET_ENDPOINT).toBe('http://minio:9000');
  });

  it('gives the service a MinIO user limited to the temporary prefix, not the root account', () => {
    expect(env.TEMP_BUCKET_ACCESS_KEY).not.toMatch(/MINIO_ROOT/);
    expect(env.TEMP_BUCKET_SECRET_KEY).not.toMatch(/MINIO_ROOT/);
    const init = services['minio-init'];
    const policy = JSON.parse(init.environment?.TEMPORARY_POLICY ?? '{}') as {
      Statement: Array<{ Effect: string; Resource: string[]; Condition?: unknown }>;
    };
    expect(policy.Statement.length).toBeGreaterThan(0);
    for (const statement of policy.Statement) {
      expect(statement.Effect).toBe('Allow');
      for (const resource of statement.Resource) {
        expect(['arn:aws:s3:::atelier/temporary/*', 'arn:aws:s3:::atelier']).toContain(resource);
        if (resource === 'arn:aws:s3:::atelier') {
          expect(statement.Condition).toEqual({ StringLike: { 's3:prefix': ['temporary/*'] } });
        }
      }
    }
    const script = (init.command ?? []).join('\n');
    expect(script).toMatch(/mc admin user add local "\$\$TEMP_BUCKET_ACCESS_KEY"/);
    expect(script).toMatch(/mc admin policy attach local atelier-temporary --user "\$\$TEMP_BUCKET_ACCESS_KEY"/);
    expect(env.TEMP_BUCKET).toBe('s3://atelier/temporary');
  });
});

/** A value as compose reads it: `${NAME:-default}` gives the default, `${NAME:?...}` a sample secret. */
function interpolate(value: string): string {
  return value.replace(/\$\{([A-Z_]+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) => {
    if (kind === '-') return rest ?? '';
    if (kind === '?') return 'ab'.repeat(32); // 64 hex digits: a valid key, password and ADMIN_API_KEY
    throw new Error(`${name} has neither a default nor a required marker`);
  });
}

/** The service's environment as the container gets it: the shared entries merged, every value interpolated. */
function containerEnvironment(name: string): Record<string, string> {
  const merged = (parse(composeText, { merge: true }) as { services: Record<string, ComposeService> }).services;
  return Object.fromEntries(
    Object.entries(merged[name].environment ?? {}).map(([key, value]) => [key, interpolate(String(value))]),
  );
}

/** The Caddyfile without its comments. */
const caddyfile = read('deploy/caddy/Caddyfile')
  .split('\n')
  .map((line) => line.replace(/(^|\s)#.*$/, ''))
  .join('\n');

describe('docker-compose.yml: Redis', () => {
  it('asks every client for the password that REDIS_URL gives the api and the worker (a real redis-server)', async () => {
    const redis = services.redis;
    const args = (redis.command ?? []).map((arg) => interpolate(arg));
    expect(args[0]).toBe('redis-server');
    const password = args[args.indexOf('--requirepass') + 1];
    expect(password).toBe(interpolate('${REDIS_PASSWORD:?x}'));
    // the health check authenticates from the environment, not the command line, and checks the answer
    expect(redis.environment?.REDISCLI_AUTH).toMatch(/^\$\{REDIS_PASSWORD:\?/);
    expect(redis.healthcheck?.test.join(' ')).toMatch(/redis-cli ping \| grep -q PONG/);
    expect(redis.healthcheck?.test.join(' ')).not.toMatch(/-a |REDIS_PASSWORD/);

    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'atelier-compose-redis-'));
    const server = spawn(
      'redis-server',
      [...args.slice(1), '--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
      {
        stdio: 'ignore',
      },
    );
    const clients: Redis[] = [];
    try {
      // the server listens once a TCP connection is accepted (bounded wait)
      for (let tries = 0; ; tries++) {
        const open = await new Promise<boolean>((done) => {
          const socket = createConnection(port, '127.0.0.1', () => done(socket.end() !== undefined));
          socket.once('error', () => done(false));
        });
        if (open) break;
        if (tries >= 100) throw new Error('redis-server did not start');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const connect = async (url: string) => {
        const client = new Redis(url, {
          lazyConnect: true,
          enableReadyCheck: false,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
        });
        client.on('error', () => undefined);
        clients.push(client);
        await client.connect();
        return client;
      };
      for (const name of ['api', 'worker']) {
        const url = new URL(loadConfig(containerEnvironment(name)).redisUrl!);
        expect(url.hostname, name).toBe('redis');
        url.hostname = '127.0.0.1';
        url.port = String(port);
        expect(await (await connect(url.href)).ping(), name).toBe('PONG');
      }
      const anonymous = await connect(`redis://127.0.0.1:${port}`);
      await expect(anonymous.ping()).rejects.toThrow(/NOAUTH/);
    } finally {
      for (const client of clients) client.disconnect();
      server.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('docker-compose.yml: the reverse proxy in front of the API', () => {
  it('sends Strict-Transport-Security on every answer, as the API’s native HTTPS does', () => {
    // HSTS_MAX_AGE's default, as loadConfig gives it under native TLS (any readable pair of files will do here)
    const tls = loadConfig({ TLS_CERT_FILE: 'package.json', TLS_KEY_FILE: 'package.json' }).tls!;
    const site = /\{\$ATELIER_DOMAIN:[^}]+\}\s*\{([\s\S]*)\}\s*$/.exec(caddyfile)?.[1] ?? '';
    // at the site's level, not inside a `handle`: the API's answers and the store's temporary results alike
    const top = site.replace(/\bhandle[^{]*\{[\s\S]*?\n\t\}/g, '');
    expect(top).toContain(`header Strict-Transport-Security "max-age=${tls.hstsMaxAgeSeconds}; includeSubDomains"`);
  });

  it('is the only way in from the world: the api publishes no port, the object store the loopback only', () => {
    expect(services.api.ports).toBeUndefined();
    expect(services.worker.ports).toBeUndefined();
    for (const [name, service] of Object.entries(services)) {
      if (name === 'proxy') continue;
      for (const port of service.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:/);
    }
    expect(services.proxy.ports).toEqual(['80:80', '443:443', '443:443/udp']);
  });

  it('runs a pinned Caddy with the Caddyfile of this repository, and keeps its certificates in a volume', () => {
    expect(services.proxy.image).toMatch(/^caddy:\d+\.\d+\.\d+-alpine$/);
    const mount = (services.proxy.volumes ?? []).find((volume) => volume.endsWith(':/etc/caddy/Caddyfile:ro'));
    expect(mount).toBeDefined();
    expect(existsSync(resolve(REPO_ROOT, mount!.split(':')[0]))).toBe(true);
    expect(services.proxy.volumes).toContain('caddy-data:/data');
  });

  it('forwards to the api port, serves the domain of PUBLIC_BASE_URL, and trusts no forwarded header it receives', () => {
    const api = loadConfig(containerEnvironment('api'));
    // Every address of the api service, at the port the api listens on.
    expect(caddyfile).toMatch(new RegExp(`dynamic a \\{\\s*name api\\s+port ${api.port}\\s`));
    // Caddy replaces a client's X-Forwarded-For unless the client is a trusted proxy; none is named.
    expect(caddyfile).not.toMatch(/trusted_proxies/);
    const site = /^\{\$ATELIER_DOMAIN:([^}]+)\} \{$/m.exec(caddyfile);
    expect(site).not.toBeNull();
    expect(services.proxy.environment?.ATELIER_DOMAIN).toBe(`\${ATELIER_DOMAIN:-${site![1]}}`);
    expect(api.publicBaseUrl).toBe(`https://${site![1]}`);
  });

  it('serves the presigned URLs of temporary results on its address, passing only their reads to the store', () => {
    const api = loadConfig(containerEnvironment('api'));
    const bucket = api.temporaryBucket!;
    // Presigned URLs name the proxy's origin, path-style: /<bucket>/<prefix>/<name>.
    expect(bucket.publicEndpoint).toBe(new URL(api.publicBaseUrl).origin);
    const matcher = /@temporary \{\s*method GET HEAD\s+path (\S+)\s*\}/.exec(caddyfile);
    expect(matcher?.[1]).toBe(`/${bucket.bucket}/${bucket.prefix}/*`);
    const store = new URL(bucket.endpoint!);
    expect(caddyfile).toMatch(new RegExp(`handle @temporary \\{\\s*reverse_proxy ${store.host}\\s*\\}`));
  });

  it('gives the api and the worker an environment the typed configuration accepts, with TRUST_PROXY on the api', () => {
    const api = loadConfig(containerEnvironment('api'));
    expect(api.trustProxy).toBe(true);
    expect(api.host).toBe('0.0.0.0');
    expect(api.tls).toBeUndefined();
    const worker = loadConfig(containerEnvironment('worker'));
    expect(worker.trustProxy).toBe(false);
    expect(worker.redisUrl).toBe(api.redisUrl);
    expect(worker.storageEncryptionKey).toEqual(api.storageEncryptionKey);
  });

  it('sets only variables that are documented in docs/configuration.md and read by the typed configuration', () => {
    const documented = documentedVariables();
    const read = configVariables();
    for (const name of ['api', 'worker']) {
      for (const variable of Object.keys(containerEnvironment(name))) {
        expect(documented.has(variable), `${name}: ${variable} in docs/configuration.md`).toBe(true);
        expect(read.has(variable) || RUNTIME_VARIABLES.has(variable), `${name}: ${variable} read`).toBe(true);
      }
    }
  });

  it('starts the api and the worker as package.json does, and checks their health on the ports they serve', () => {
    for (const name of ['api', 'worker'] as const) {
      const script = startScript(name);
      expect(services[name].command, name).toEqual(['node', ...script.nodeOptions, script.entry]);
      for (const [variable, value] of Object.entries(script.env)) {
        expect(containerEnvironment(name)[variable], `${name}: ${variable}`).toBe(value);
      }
    }
    const api = loadConfig(containerEnvironment('api'));
    expect(services.api.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${api.port}/health/ready`);
    const worker = loadConfig(containerEnvironment('worker'));
    expect(worker.metricsPort).toBeGreaterThan(0);
    expect(services.worker.healthcheck?.test.join(' ')).toContain(
      `http://127.0.0.1:${worker.metricsPort}${METRICS_READY_PATH}`,
    );
  });
});

describe('the image build', () => {
  const dockerfile = read('Dockerfile');

  it('installs exactly the lockfile, from pinned base images', () => {
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).not.toMatch(/^RUN npm install(?! -g)/m);
    for (const [, tag] of dockerfile.matchAll(/^FROM node:(\S+)/gm)) expect(tag).toMatch(/^\d+\.\d+\.\d+-/);
  });

  it('starts the API as `npm start` does, with the environment of the start scripts', () => {
    const api = startScript('api');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile);
    expect(JSON.parse(cmd![1])).toEqual(['node', ...api.nodeOptions, api.entry]);
    // The header's example of the worker, as `npm run start:worker`.
    const worker = startScript('worker');
    expect(dockerfile).toContain(`docker run atelier ${['node', ...worker.nodeOptions, worker.entry].join(' ')}`);
    for (const [variable, value] of Object.entries({ ...api.env, ...startScript('worker').env })) {
      expect(dockerfile).toMatch(new RegExp(`^(ENV|    ) *${variable}=${value}\\b`, 'm'));
    }
  });

  it('has a lockfile that lists every platform’s optional packages, so npm ci works on any of them', () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { optionalDependencies?: Record<string, string> }>;
    };
    /** Where Node would find `name` from the package at `path`: its own node_modules, then each ancestor's. */
    const found = (path: string, name: string): boolean => {
      for (let base = path; ;) {
        if (lock.packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
        const up = base.lastIndexOf('/node_modules/');
        if (base === '') return false;
        base = up < 0 ? '' : base.slice(0, up);
      }
    };
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!found(path, name)) missing.push(`${name} (of ${path || 'the project'})`);
      }
    }
    expect(missing).toEqual([]);
  });
});
