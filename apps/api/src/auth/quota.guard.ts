import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { quotaRefusals, ServiceException } from '@app/common';
import { KeysService } from './keys.service';
import { UNCOUNTED_KEY } from './require-scopes.decorator';

/**
 * Counts the call against the key's quota, after the rate limit let it through (402 when spent); a route marked
 * {@link Uncounted} is not counted.
 */
@Injectable()
export class QuotaGuard implements CanActivate {
  constructor(
    private readonly keys: KeysService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(UNCOUNTED_KEY, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
    if (principal && !(await this.keys.consumeCall(principal))) {
      quotaRefusals.inc();
      throw new ServiceException('QUOTA_EXHAUSTED');
    }
    return true;
  }
}
