import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalDriver } from './local.driver';

describe('LocalDriver', () => {
  const roots: string[] = [];
  const driver = () => {
    const root = mkdtempSync(join(tmpdir(), 'local-driver-'));
    roots.push(root);
    return { root, local: new LocalDriver(join(root, 'bucket')) };
  };
  afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

  it('writes a buffer and a stream into folders it makes, leaving no partial file', async () => {
    const { root, local } = driver();
    await local.write('a/one.jpg', Buffer.from('one'));
    await local.write('a/b/two.jpg', Readable.from([Buffer.from('tw'), Buffer.from('o')]));
    expect(readFileSync(join(root, 'bucket/a/one.jpg'), 'utf8')).toBe('one');
    expect(readFileSync(join(root, 'bucket/a/b/two.jpg'), 'utf8')).toBe('two');
    expect(readdirSync(join(root, 'bucket/a'))).toEqual(['b', 'one.jpg']);
  });

  it('writes again into a folder removed since its last write', async () => {
    const { root, local } = driver();
    await local.write('one.jpg', Buffer.from('one'));
    rmSync(join(root, 'bucket'), { recursive: true });
    await local.write('two.jpg', Buffer.from('two'));
    expect(readFileSync(join(root, 'bucket/two.jpg'), 'utf8')).toBe('two');
    rmSync(join(root, 'bucket'), { recursive: true });
    await local.write('four.jpg', Readable.from([Buffer.from('4')]));
    expect(readFileSync(join(root, 'bucket/four.jpg'), 'utf8')).toBe('4');
  });
});
