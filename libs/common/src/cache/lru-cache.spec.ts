import { describe, expect, it } from 'vitest';
import { LruCache } from './lru-cache';

describe('LruCache', () => {
  it('keeps at most `limit` entries, the least recently used leaving first', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('forgets an entry `ttlMs` after it was set', () => {
    let now = 1_000;
    const cache = new LruCache<string, number>(10, 500, () => now);
    cache.set('a', 1);
    now += 499;
    expect(cache.get('a')).toBe(1);
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('forgets entries by key or by value', () => {
    const cache = new LruCache<string, { owner: number }>(10);
    cache.set('a', { owner: 1 });
    cache.set('b', { owner: 2 });
    cache.set('c', { owner: 1 });
    cache.deleteWhere((value) => value.owner === 1);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([undefined, { owner: 2 }, undefined]);
    cache.delete('b');
    expect(cache.size).toBe(0);
  });

  it('keeps nothing with a limit of 0', () => {
    const cache = new LruCache<string, number>(0);
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
  });
});
