import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { ReserveBytes } from './fetch-stream';

/** A request body written from a stream: its exact length, and a fresh stream of it at each call (a redirect's). */
export interface StreamedBody {
  length: number;
  open(): Readable;
}

export interface SafeFetchOptions {
  method?: 'GET' | 'HEAD' | 'POST';
  /** Request body (POST); sent again on a 307 or 308 redirect, dropped when a redirect turns the request into GET. */
  body?: Buffer | StreamedBody;
  /** Largest body accepted, in bytes; default the configured FETCH_MAX_BYTES. */
  maxBytes?: number;
  headers?: Record<string, string>;
  /** False: a redirect is not followed but returned as the response (a webhook must not re-send elsewhere). */
  redirects?: boolean;
  /** Aborts the download (the caller's own deadline or cancellation). */
  signal?: AbortSignal;
  /** download(): holds memory for the body before it is read (see readWhole). */
  reserve?: ReserveBytes;
}

/** A response whose every hop (redirects included) was checked against the address policy. */
export interface SafeFetchResponse {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** MIME type sniffed from the first bytes when recognised, else the Content-Type header's type. */
  contentType?: string;
  /** Declared Content-Length, when present. */
  size?: number;
  /** The body; errors with FETCH_TOO_LARGE past maxBytes and FETCH_FAILED at the total timeout. */
  body: Readable;
}

export interface SafeDownload {
  url: string;
  buffer: Buffer;
  contentType?: string;
}
