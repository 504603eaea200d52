import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a sane incoming `x-request-id`, otherwise generates a UUID. */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  const value = Array.isArray(incoming) ? incoming[0] : incoming;
  return value !== undefined && SANE_REQUEST_ID.test(value) ? value : randomUUID();
}
