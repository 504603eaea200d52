import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from '@app/common';

/**
 * Makes JSON the one body type Fastify parses (the upload route's multipart parser is registered after this).
 * Every other type, `text/plain` and `application/x-www-form-urlencoded` included, is a 415 rather than a string
 * or a form that would fail validation. Bodies are bounded in depth before they are parsed (`MAX_JSON_DEPTH`).
 *
 * Clients of the hosted API family (docs/api-contract.md, "General"): an empty body is no body (a DELETE or GET sent with the header,
 * a POST then answered as one without a body), and a `null` member is an absent one, except in PATCH bodies,
 * where `null` removes a member.
 */
export function acceptJsonBodiesOnly(fastify: FastifyInstance, maxDepth: number): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.length === 0) {
      done(null, undefined);
      return;
    }
    try {
      done(null, parseJsonBody(text, maxDepth, undefined, { nullIsAbsent: request.method !== 'PATCH' }));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
