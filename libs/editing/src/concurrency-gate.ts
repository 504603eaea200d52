import { ServiceException } from '@app/common';

/**
 * Bounds the images one process works on at once (`limit`) and how many may wait (`queueLimit`); past that a
 * request is refused at once with 503 and `Retry-After`, instead of piling up memory and latency.
 */
export class ConcurrencyGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    private readonly queueLimit: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.enter();
    try {
      return await work();
    } finally {
      this.leave();
    }
  }

  private enter(): Promise<void> {
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.queueLimit) {
      return Promise.reject(new ServiceException('EDIT_BUSY', undefined, {}, { 'Retry-After': '1' }));
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
