import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * The deployment files cannot run here (no Docker engine), so what makes them safe is checked in their text:
 * no secret with a default, the internal object store out of tenants' reach and on loopback only, a temporary
 * bucket user restricted to its prefix, pinned images, and an image build that installs exactly the lockfile.
 */
const ROOT = resolve(__dirname, '..');
const read = (name: string) => readFileSync(resolve(ROOT, name), 'utf8');

interface ComposeService {
  image?: string;
  ports?: string[];
  environment?: Record<string, string>;
  command?: string[];
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

  it('pins every image to a version', () => {
    for (const [name, service] of Object.entries(services)) {
      if (!service.image || service.image.startsWith('atelier:')) continue;
      const tag = service.image.split(':')[1] ?? '';
      expect(tag, name).toMatch(/\d/);
      expect(tag, name).not.toMatch(/latest/);
    }
  });

  it('gives the API and the worker the same PUBLIC_BASE_URL (result_url, webhooks and sample inputs name it)', () => {
    // As compose reads the file: `<<: *atelier-env` merges the shared entries into each service's environment.
    const merged = (parse(composeText, { merge: true }) as { services: Record<string, ComposeService> }).services;
    for (const name of ['api', 'worker']) {
      expect(merged[name].environment?.PUBLIC_BASE_URL, name).toBe(env.PUBLIC_BASE_URL);
    }
    expect(env.PUBLIC_BASE_URL).toMatch(/^\$\{PUBLIC_BASE_URL:-https?:\/\//);
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

describe('the image build', () => {
  const dockerfile = read('Dockerfile');

  it('installs exactly the lockfile, from pinned base images', () => {
    expect(dockerfile).toMatch(/^RUN npm ci\b/m);
    expect(dockerfile).not.toMatch(/^RUN npm install(?! -g)/m);
    for (const [, tag] of dockerfile.matchAll(/^FROM node:(\S+)/gm)) expect(tag).toMatch(/^\d+\.\d+\.\d+-/);
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
