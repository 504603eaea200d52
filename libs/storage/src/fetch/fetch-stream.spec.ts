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

  it('asks the reservation for each larger total and keeps the last chunk that waited for it', async () => {
    const asked: number[] = [];
    const slow = async (total: number) => {
      asked.push(total);
      await new Promise((resolve) => setTimeout(resolve, 20));
    };
    expect((await readWhole(body('abc', 'def'), 100, 'x', undefined, slow)).toString()).toBe('abcdef');
    expect(asked).toEqual([0, 3, 6]);
  });

  it("fails with the reservation's refusal and reads no further", async () => {
    const refused = new Error('over budget');
    const source = body('abc', 'def', 'ghi');
    const reserve = async (total: number) => {
      if (total > 3) throw refused;
    };
    await expect(readWhole(source, 100, 'x', undefined, reserve)).rejects.toBe(refused);
    expect(source.destroyed).toBe(true);
  });

  it('fails when the body closes before its end', async () => {
    const source = new Readable({ read() {} });
    source.push(Buffer.from('abc'));
    setTimeout(() => source.destroy(), 10);
    await expect(readWhole(source, 100, 'x', 6)).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('fails with FETCH_TOO_LARGE past the cap, declared or not', async () => {
    await expect(readWhole(body('abc'), 2, 'x', 3)).rejects.toMatchObject({ codeName: 'FETCH_TOO_LARGE' });
    await expect(readWhole(body('ab', 'cd'), 3, 'x')).rejects.toMatchObject({ codeName: 'FETCH_TOO_LARGE' });
  });
});
