/**
 * libvips threads per image, shared among the images in flight. sharp's default gives every image all of
 * its threads (one per core, or one on glibc without MALLOC_ARENA_MAX); with several images in flight that
 * puts several threads on each core, which costs more CPU per image than one thread each (docs/benchmarks.md).
 * libvips reads its concurrency when a pipeline starts, so the share is set as each image begins: alone, an
 * image gets every thread (AVIF and WEBP encoders use them); with others, its share, at least one.
 */
export class ThreadShare {
  private active = 0;

  /** @param threads the most threads one image may use: sharp's default concurrency. */
  constructor(private readonly threads: number) {}

  /** Counts an image in; returns the threads it should start with. */
  enter(): number {
    this.active += 1;
    return Math.max(1, Math.floor(this.threads / this.active));
  }

  /** Counts an image out. */
  leave(): void {
    this.active = Math.max(0, this.active - 1);
  }

  /** Images in flight. */
  get inFlight(): number {
    return this.active;
  }
}
