import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth } from '@nestjs/swagger';
import type { Scope } from '@app/database';
import { ApiErrorResponse, ApiErrors } from '../openapi/api-errors.decorator';
import { markRouteAccess } from './route-access';

export const SCOPES_KEY = 'atelier:scopes';
export const PUBLIC_KEY = 'atelier:public';

/**
 * The scopes a route needs; a key with any one of them (or `admin`) may call it. Every route
 * is either scoped or {@link Public}; an unmarked route needs `admin` (fail closed).
 */
export const RequireScopes = (...scopes: Scope[]) =>
  applyDecorators(
    SetMetadata(SCOPES_KEY, scopes),
    markRouteAccess('key'),
    ApiBearerAuth(),
    ApiErrors(
      [['AUTH_REQUIRED', 'AUTH_INVALID_KEY'], 'No key, or an unknown or revoked key.'],
      [['QUOTA_EXHAUSTED'], "The key's call quota is spent."],
      [['AUTH_FORBIDDEN'], `The key lacks the scope (${[...new Set([...scopes, 'admin'])].join(' or ')}).`],
      [
        ['RATE_LIMITED', 'ADDRESS_RATE_LIMITED', 'AUTH_FAILURES_LIMITED'],
        "Rate limit exceeded: the key's, the client address's, or the address's failed authentications.",
      ],
    ),
  );

/**
 * A route reachable without a key. `probe`: a health check, never refused for its client address's request
 * budget, so a flood from the address a load balancer or orchestrator shares cannot fail its probes.
 */
export const Public = (options: { probe?: boolean } = {}) =>
  applyDecorators(
    SetMetadata(PUBLIC_KEY, true),
    markRouteAccess(options.probe ? 'probe' : 'public'),
    ...(options.probe
      ? []
      : [ApiErrorResponse(['ADDRESS_RATE_LIMITED'], "The client address's request budget is spent.")]),
  );

export const UNCOUNTED_KEY = 'atelier:uncounted';

/** A route whose calls do not count against the key's quota (reading the key's own usage). */
export const Uncounted = () => SetMetadata(UNCOUNTED_KEY, true);
