import { describe, expect, it } from 'vitest';
import { ThreadShare } from './thread-share';

describe('ThreadShare', () => {
  it('gives an image alone every thread, and images in flight their share, at least one', () => {
    const share = new ThreadShare(4);
    expect(share.enter()).toBe(4);
    expect(share.enter()).toBe(2);
    expect(share.enter()).toBe(1);
    expect(share.enter()).toBe(1);
    expect(share.enter()).toBe(1);
    expect(share.inFlight).toBe(5);
  });

  it('gives threads back as images finish', () => {
    const share = new ThreadShare(2);
    share.enter();
    expect(share.enter()).toBe(1);
    share.leave();
    share.leave();
    expect(share.inFlight).toBe(0);
    expect(share.enter()).toBe(2);
  });

  it('never counts below zero', () => {
    const share = new ThreadShare(2);
    share.leave();
    expect(share.enter()).toBe(2);
  });

  it('keeps one thread for every image when sharp itself uses one (glibc without MALLOC_ARENA_MAX)', () => {
    const share = new ThreadShare(1);
    expect(share.enter()).toBe(1);
    expect(share.enter()).toBe(1);
  });
});
