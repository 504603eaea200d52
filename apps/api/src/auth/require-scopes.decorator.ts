import { applyDecorators, SetMetadata } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiForbiddenResponse,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Scope } from '@app/database';
import { ErrorBodyDto, RateLimitErrorDto } from '../openapi/error-body.dto';

export const SCOPES_KEY = 'atelier:scopes';
export const PUBLIC_KEY = 'atelier:public';

/**
 * The scopes a route needs; a key with any one of them (or `admin`) may call it. Every route
 * is either scoped or {@link Public}; an unmarked route needs `admin` (fail closed).
 */
export const RequireScopes = (...scopes: Scope[]) =>
  applyDecorators(
    SetMetadata(SCOPES_KEY, scopes),
    ApiBearerAuth(),
    ApiUnauthorizedResponse({ description: 'No key, or an unknown or revoked key.', type: ErrorBodyDto }),
    ApiForbiddenResponse({
      description: `The key lacks the scope (${[...scopes, 'admin'].join(' or ')}).`,
      type: ErrorBodyDto,
    }),
    ApiTooManyRequestsResponse({ description: 'Rate limit exceeded.', type: RateLimitErrorDto }),
  );

/** A route reachable without a key (health checks). */
export const Public = () => SetMetadata(PUBLIC_KEY, true);
