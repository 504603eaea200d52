import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ServiceException } from '@app/common';
import type { Scope } from '@app/database';
import { authenticateRequest } from './authenticate-request';
import { KeysService } from './keys.service';
import { hasScope } from './principal';
import { PUBLIC_KEY, SCOPES_KEY } from './require-scopes.decorator';

/**
 * Checks the route's scopes (403). The request gate (http/request-gate.ts) authenticated the key (401) before
 * the body was read; a route it did not know as needing a key is authenticated here, so none goes unchecked.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: KeysService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const principal = request.principal ?? (await authenticateRequest(request, this.keys));
    const scopes = this.reflector.getAllAndOverride<Scope[]>(SCOPES_KEY, targets) ?? ['admin'];
    if (!scopes.some((scope) => hasScope(principal, scope))) {
      throw new ServiceException(
        'AUTH_FORBIDDEN',
        `The API key lacks the permission for this request; it needs the scope ${scopes.join(' or ')}.`,
      );
    }
    return true;
  }
}
