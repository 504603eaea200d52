import { describe, expect, it } from 'vitest';
import { asyncTaskKind, batchTaskKind, findTaskKind, TASK_KIND_NAMES, taskKind, taskPath } from './index';

describe('task kinds', () => {
  it('are found by the name stored with a task, which fits its column (8 characters)', () => {
    expect(TASK_KIND_NAMES).toEqual(['batch', 'async']);
    for (const name of TASK_KIND_NAMES) {
      expect(taskKind(name).name).toBe(name);
      expect(name.length).toBeLessThanOrEqual(8);
    }
    expect(() => taskKind('nightly')).toThrow('unknown task kind "nightly"');
  });

  it('show a task of a kind this build does not know (a newer build wrote it) at the route every task has', () => {
    expect(findTaskKind('nightly')).toBeUndefined();
    expect(taskPath({ id: 9, kind: 'nightly' })).toBe('/v1/tasks/9');
    expect(taskPath({ id: 9, kind: 'batch' })).toBe('/v1/image/edit/batch/9');
  });

  it.each([
    { kind: batchTaskKind, path: '/v1/image/edit/batch/7', single: false },
    { kind: asyncTaskKind, path: '/v1/image/edit/async/7', single: true },
  ])('$kind.name: its route and whether it shows one result', ({ kind, path, single }) => {
    expect(kind.path(7)).toBe(path);
    expect(kind.singleResult).toBe(single);
  });

  it.each([
    { kind: batchTaskKind, destination: 's3://x/out/', subPath: 'shoes/', expected: 's3://x/out/shoes/' },
    { kind: batchTaskKind, destination: undefined, subPath: 'shoes/', expected: undefined },
    { kind: asyncTaskKind, destination: 'storage://x/out/a.png', subPath: '', expected: 'storage://x/out/a.png' },
    { kind: asyncTaskKind, destination: undefined, subPath: '', expected: undefined },
  ])('$kind.name writes an item from $subPath to $expected', ({ kind, destination, subPath, expected }) => {
    expect(kind.itemDestination(destination, subPath)).toBe(expected);
  });

  it('read their own requests: a batch a folder or a list, an async edit one image', () => {
    const operations = { resizing: { width: 100 } };
    const batch = batchTaskKind.parse({ input: 'storage://shop/in/', operations, output: 'storage://shop/out/' });
    expect(batch.input).toEqual({ kind: 'folder', reference: 'storage://shop/in/', recursive: false });
    expect(batch.edit.output.format?.type).toBe('jpeg');
    const single = asyncTaskKind.parse({ input: 'https://example.com/a.png', operations });
    expect(single.input).toEqual({ kind: 'files', inputs: ['https://example.com/a.png'] });
    // an async edit takes no folder input, a batch no single output file
    expect(() => asyncTaskKind.parse({ operations })).toThrow();
    expect(() => batchTaskKind.parse({ input: 'storage://shop/in/', output: 'storage://shop/out/a.png' })).toThrow();
  });
});
