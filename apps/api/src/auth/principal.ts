import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Scope } from '@app/database';

/** Who is calling: the authenticated key, its account and what it may do. */
export interface Principal {
  /** Database id of the key; null for the admin key given in configuration. */
  keyId: number | null;
  accountId: number;
  accountName: string;
  scopes: readonly Scope[];
  /** Calls the key may make in all, or null for unlimited. */
  quota: number | null;
  rateLimit: { perSecond: number; perMinute: number };
  /** The operator-made key whose rate limits this key shares (key-limits.ts); null for an operator's key. */
  grant: { keyId: number; rateLimit: { perSecond: number; perMinute: number } } | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** Injects the authenticated {@link Principal} into a handler parameter. */
export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without authentication');
  return principal;
});

/** Whether the principal holds a scope; `admin` holds every scope. */
export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.includes('admin') || principal.scopes.includes(scope);
}
