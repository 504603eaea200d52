import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMMUTABLE, NO_CACHE, resolveDashboardFile } from './dashboard-files';

describe('resolveDashboardFile', () => {
  let root: string;
  beforeAll(() => {
    const parent = mkdtempSync(join(tmpdir(), 'atelier-dashboard-files-'));
    root = join(parent, 'dashboard');
    mkdirSync(join(root, 'assets'), { recursive: true });
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>page</title>');
    writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
    writeFileSync(join(root, 'assets', 'index-abc123.css'), 'body{}');
    writeFileSync(join(parent, 'secret.txt'), 'outside');
  });
  afterAll(() => rmSync(join(root, '..'), { recursive: true, force: true }));

  it('serves hashed assets as immutable with their content type, and index.html as no-cache', () => {
    const js = resolveDashboardFile(root, 'assets/index-abc123.js')!;
    expect([js.type, js.cache, js.body.toString()]).toEqual([
      'text/javascript; charset=utf-8',
      IMMUTABLE,
      'console.log(1)',
    ]);
    expect(resolveDashboardFile(root, 'assets/index-abc123.css')!.type).toBe('text/css; charset=utf-8');
    const index = resolveDashboardFile(root, '')!;
    expect([index.type, index.cache]).toEqual(['text/html; charset=utf-8', NO_CACHE]);
  });

  it('answers client routes with index.html, but a missing file with nothing', () => {
    expect(resolveDashboardFile(root, 'tasks/42')!.body.toString()).toContain('<title>page</title>');
    expect(resolveDashboardFile(root, 'assets/gone-000.js')).toBeUndefined();
  });

  it('never leaves its folder', () => {
    expect(resolveDashboardFile(root, '../secret.txt')).toBeUndefined();
    expect(resolveDashboardFile(root, '%2e%2e/secret.txt')).toBeUndefined();
    expect(resolveDashboardFile(root, 'assets/../../secret.txt')).toBeUndefined();
  });
});
