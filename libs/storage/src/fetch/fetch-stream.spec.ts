import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readWhole } from './fetch-stream';

const body = (...chunks: string[]) => Readable.from(chunks.map((chunk) => Buffer.from(chunk)));

describe('readWhole', () => {
  it('reads a body of the declared size into one buffer', async () => {
    expect((await readWhole(body('abc', 'def'), 100, 'x', 6)).toString()).toBe('abcdef');
  });

  it('reads a body without a declared size, or shorter or longer than declared', async () => {
    expect((await readWhole(body('abc', 'def'), 100, 'x')).toString()).toBe('abcdef');
    expect((await readWhole(body('abc'), 100, 'x', 6)).toString()).toBe('abc');
    expect((await readWhole(body('abc', 'def', 'g'), 100, 'x', 4)).toString()).toBe('abcdefg');
  });

  it('fails with FETCH_TOO_LARGE past the cap, declared or not', async () => {
    await expect(readWhole(body('abc'), 2, 'x', 3)).rejects.toMatchObject({ codeName: 'FETCH_TOO_LARGE' });
    await expect(readWhole(body('ab', 'cd'), 3, 'x')).rejects.toMatchObject({ codeName: 'FETCH_TOO_LARGE' });
  });
});
