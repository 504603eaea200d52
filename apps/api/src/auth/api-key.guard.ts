import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ServiceException } from '@app/common';
import type { Scope } from '@app/database';
import { bearerToken } from './api-key.format';
import { KeysService } from './keys.service';
import { hasScope } from './principal';
import { PUBLIC_KEY, SCOPES_KEY } from './require-scopes.decorator';

/** Authenticates the bearer key (401) and checks the route's scopes (403). */
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
    const header = request.headers.authorization;
    const token = bearerToken(header);
    if (header === undefined || header.trim() === '') throw new ServiceException('AUTH_REQUIRED');
    const principal = token ? await this.keys.authenticate(token) : undefined;
    if (!principal) throw new ServiceException('AUTH_INVALID_KEY');
    request.principal = principal;
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
