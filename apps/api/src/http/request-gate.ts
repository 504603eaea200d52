import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { authenticateRequest } from '../auth/authenticate-request';
import { KeysService } from '../auth/keys.service';
import { routeAccess } from '../auth/route-access';
import type { FastifyRequest } from 'fastify';
import { bearerToken, hashKey } from '../auth/api-key.format';
import { AddressLimiter, clientAddress } from '../rate-limit/address-limiter';

/**
 * What every request meets before its body is read (Fastify `onRequest`), so that a flood costs little:
 * 1. its client address's request budget (429 `ADDRESS_RATE_LIMITED`), except on health probes;
 * 2. on routes that need a key: the budgets of failed authentications (429 `AUTH_FAILURES_LIMITED`, before any
 *    key lookup) of the presented key and, unless that key was recently seen valid, of the address; then the key
 *    (401): an unauthenticated body is never read or parsed.
 * Scopes stay with ApiKeyGuard, which needs the route's handler. Every answer of 401 or 403 counts against the
 * address's failure budget and the presented key's (`onSend`: before the answer leaves, so the client's next
 * request sees it).
 * Registered before the routes, as Fastify hooks apply to routes added after them.
 */
export function installRequestGate(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const addresses = app.get(AddressLimiter);
  const keys = app.get(KeysService);
  fastify.addHook('onRequest', async (request) => {
    const access = routeAccess(request);
    const address = clientAddress(request.ip);
    if (access !== 'probe') await addresses.admitRequest(address);
    if (access !== 'key') return;
    const hash = presentedKeyHash(request);
    await addresses.admitAuthentication(
      address,
      hash === undefined ? undefined : { hash, recentlyValid: keys.wasRecentlyValid(hash) },
    );
    await authenticateRequest(request, keys);
  });
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 401 || reply.statusCode === 403) {
      await addresses.recordFailure(clientAddress(request.ip), presentedKeyHash(request));
    }
    return payload;
  });
}

/** The hash of the request's Bearer key; undefined without one. */
function presentedKeyHash(request: FastifyRequest): string | undefined {
  const token = bearerToken(request.headers.authorization);
  return token === undefined ? undefined : hashKey(token);
}
