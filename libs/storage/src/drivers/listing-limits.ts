import { Readable } from 'node:stream';
import { ServiceException } from '@app/common';

/**
 * Bounds of one listing of a store (STORAGE_LIST_* settings): the store, often a tenant's own S3-compatible endpoint,
 * decides how many pages there are, how large each is and what token comes next, so none of it is trusted.
 */
export interface ListingLimits {
  /** Pages one listing may request. */
  maxPages: number;
  /** Longest a listing may run, from its first page request, in milliseconds (checked before each page). */
  timeoutMs: number;
  /** Largest answer to one page request, in bytes (the S3 XML document). */
  pageMaxBytes: number;
}

/** The defaults of the STORAGE_LIST_* settings (libs/common/src/config). */
export const DEFAULT_LISTING_LIMITS: ListingLimits = {
  maxPages: 10_000,
  timeoutMs: 600_000,
  pageMaxBytes: 8 * 1024 * 1024,
};

/** A listing the store would not let end: never retried (asking again gets the same answer). */
export function listingRefused(reason: string): ServiceException {
  return new ServiceException('STORAGE_LISTING_REFUSED', `The storage's listing was stopped: ${reason}.`);
}

/**
 * The page count, clock and continuation tokens of one listing. `next(token)` before each page request after the
 * first: it throws when the listing is over its pages or its time, or when the store hands back a token it gave
 * before (a loop that would never end).
 */
export class ListingBudget {
  private pages = 0;
  private readonly started = Date.now();
  private readonly tokens = new Set<string>();

  constructor(private readonly limits: ListingLimits) {}

  /** Counts a page about to be requested, with the token it continues from (undefined for the first). */
  next(token?: string): void {
    if (token !== undefined) {
      if (this.tokens.has(token)) listingStop('the store answered a continuation token it had given before');
      this.tokens.add(token);
    }
    this.pages += 1;
    if (this.pages > this.limits.maxPages) {
      listingStop(`it has more than ${this.limits.maxPages} pages (STORAGE_LIST_MAX_PAGES)`);
    }
    if (Date.now() - this.started > this.limits.timeoutMs) {
      listingStop(`it took longer than ${this.limits.timeoutMs} ms (STORAGE_LIST_TIMEOUT_MS)`);
    }
  }
}

function listingStop(reason: string): never {
  throw listingRefused(reason);
}

/**
 * The bytes of `body` up to `maxBytes`: past them the body ends early (what was read parses as a broken document)
 * and `onOver` is called, so that the caller answers with the real reason rather than the parser's.
 */
export function cappedBody(body: Readable, maxBytes: number, onOver: () => void): Readable {
  async function* capped(): AsyncGenerator<Buffer> {
    let total = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) {
        onOver();
        return;
      }
      yield chunk;
    }
  }
  return Readable.from(capped(), { objectMode: false });
}
