import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from '@app/common';

/**
 * Makes JSON the one body type Fastify parses (the upload route's multipart parser is registered after this).
 * Every other type, `text/plain` and `application/x-www-form-urlencoded` included, is a 415 rather than a string
 * or a form that would fail validation. Bodies are bounded in depth before they are parsed (`MAX_JSON_DEPTH`).
 */
export function acceptJsonBodiesOnly(fastify: FastifyInstance, maxDepth: number): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string, maxDepth));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
