import type { FastifyRequest } from 'fastify';
import { ServiceException } from '@app/common';
import { bearerToken } from './api-key.format';
import type { KeysService } from './keys.service';
import type { Principal } from './principal';

/**
 * Sets `request.principal` from `Authorization: Bearer <key>`: 401 `AUTH_REQUIRED` without the header, 401
 * `AUTH_INVALID_KEY` for a header without the Bearer scheme (saying how to send it) or an unknown or revoked key. Scopes are checked by ApiKeyGuard.
 */
export async function authenticateRequest(request: FastifyRequest, keys: KeysService): Promise<Principal> {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') throw new ServiceException('AUTH_REQUIRED');
  const token = bearerToken(header);
  // The commonest first-hour mistake is the key alone in the header: say how to send it (never echo it).
  if (!token) throw new ServiceException('AUTH_INVALID_KEY', 'Send the API key as "Authorization: Bearer <key>".');
  const principal = await keys.authenticate(token);
  if (!principal) throw new ServiceException('AUTH_INVALID_KEY');
  request.principal = principal;
  return principal;
}
