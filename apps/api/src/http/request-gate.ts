import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { authenticateRequest } from '../auth/authenticate-request';
import { KeysService } from '../auth/keys.service';
import { routeAccess } from '../auth/route-access';
import { AddressLimiter, clientAddress } from '../rate-limit/address-limiter';

/**
 * What every request meets before its body is read (Fastify `onRequest`), so that a flood costs little:
 * 1. its client address's request budget (429 `ADDRESS_RATE_LIMITED`), except on health probes;
 * 2. on routes that need a key: the address's budget of failed authentications (429 `AUTH_FAILURES_LIMITED`,
 *    before any key lookup), then the key (401): an unauthenticated body is never read or parsed.
 * Scopes stay with ApiKeyGuard, which needs the route's handler. Every answer of 401 or 403 counts against the
 * address's failure budget (`onSend`: before the answer leaves, so the client's next request sees it).
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
    await addresses.admitAuthentication(address);
    await authenticateRequest(request, keys);
  });
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 401 || reply.statusCode === 403) {
      await addresses.recordFailure(clientAddress(request.ip));
    }
    return payload;
  });
}
