import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configPath, resolveConnection, writeStoredConfig } from './cli-config';
import { CliError } from './exit-codes';

const folder = mkdtempSync(join(tmpdir(), 'atelier-config-'));
const file = join(folder, 'config.json');
writeFileSync(file, JSON.stringify({ url: 'http://file:1', key: 'file-key' }));

describe('resolveConnection', () => {
  it.each([
    // flags, environment -> url, key
    [{}, { ATELIER_CONFIG: file }, 'http://file:1', 'file-key'],
    [{}, { ATELIER_CONFIG: file, ATELIER_URL: 'http://env:2/', ATELIER_KEY: 'env-key' }, 'http://env:2', 'env-key'],
    [
      { url: 'http://flag:3', key: 'flag-key' },
      { ATELIER_CONFIG: file, ATELIER_URL: 'http://env:2' },
      'http://flag:3',
      'flag-key',
    ],
    [{ key: 'flag-key' }, { ATELIER_CONFIG: file }, 'http://file:1', 'flag-key'],
  ])('flags %j, environment %j -> %s', (flags, env, url, key) => {
    expect(resolveConnection(flags, env)).toEqual({ url, key });
  });

  it.each([
    [{}, { ATELIER_CONFIG: join(folder, 'none.json') }, /No service URL/],
    [{ url: 'http://x:1' }, { ATELIER_CONFIG: join(folder, 'none.json') }, /No API key/],
    [{ url: 'ftp://x', key: 'k' }, {}, /must start with http/],
    [{ url: 'not a url', key: 'k' }, {}, /is not a URL/],
  ])('flags %j, environment %j: usage error', (flags, env, message) => {
    expect(() => resolveConnection(flags, env)).toThrow(CliError);
    expect(() => resolveConnection(flags, env)).toThrow(message);
  });

  it('names the file it cannot parse', () => {
    const broken = join(folder, 'broken.json');
    writeFileSync(broken, '{');
    expect(() => resolveConnection({}, { ATELIER_CONFIG: broken })).toThrow(
      `The config file ${broken} is not valid JSON`,
    );
  });
});

describe('the config file', () => {
  it('lives in ~/.config/atelier unless ATELIER_CONFIG moves it', () => {
    expect(configPath({ HOME: '/home/ada' })).toBe('/home/ada/.config/atelier/config.json');
    expect(configPath({ HOME: '/home/ada', ATELIER_CONFIG: '/etc/a.json' })).toBe('/etc/a.json');
  });

  it('is written 0600, even over a file that was readable by others', () => {
    const path = join(folder, 'deep', 'config.json');
    writeStoredConfig(path, { url: 'http://a:1', key: 'k1' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeFileSync(path, '{}', { mode: 0o644 });
    writeStoredConfig(path, { url: 'http://a:1', key: 'k2' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ url: 'http://a:1', key: 'k2' });
  });
});
