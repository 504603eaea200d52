import { applyDecorators, SetMetadata } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Scope } from '@app/database';
import { ErrorBodyDto, RateLimitErrorDto } from '../openapi/error-body.dto';
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
    ApiUnauthorizedResponse({ description: 'No key, or an unknown or revoked key.', type: ErrorBodyDto }),
    ApiForbiddenResponse({
      description: `The key lacks the scope (${[...scopes, 'admin'].join(' or ')}).`,
      type: ErrorBodyDto,
    }),
    ApiTooManyRequestsResponse({ description: 'Rate limit exceeded.', type: RateLimitErrorDto }),
  );

/**
 * A route reachable without a key. `probe`: a health check, never refused for its client address's request
 * budget, so a flood from the address a load balancer or orchestrator shares cannot fail its probes.
 */
export const Public = (options: { probe?: boolean } = {}) =>
  applyDecorators(SetMetadata(PUBLIC_KEY, true), markRouteAccess(options.probe ? 'probe' : 'public'));
