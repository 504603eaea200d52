import type { FastifyRequest } from 'fastify';
import { ServiceException } from '@app/common';
import { bearerToken } from './api-key.format';
import type { KeysService } from './keys.service';
import type { Principal } from './principal';

/**
 * Sets `request.principal` from `Authorization: Bearer <key>`: 401 `AUTH_REQUIRED` without the header, 401
 * `AUTH_INVALID_KEY` for a malformed header or an unknown or revoked key. Scopes are checked by ApiKeyGuard.
 */
export async function authenticateRequest(request: FastifyRequest, keys: KeysService): Promise<Principal> {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') throw new ServiceException('AUTH_REQUIRED');
  const token = bearerToken(header);
  const principal = token ? await keys.authenticate(token) : undefined;
  if (!principal) throw new ServiceException('AUTH_INVALID_KEY');
  request.principal = principal;
  return principal;
}
