import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ServiceException } from '@app/common';
import { KeysService } from './keys.service';

/** Counts the call against the key's quota, after the rate limit let it through (402 when spent). */
@Injectable()
export class QuotaGuard implements CanActivate {
  constructor(private readonly keys: KeysService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
    if (principal && !(await this.keys.consumeCall(principal))) throw new ServiceException('QUOTA_EXHAUSTED');
    return true;
  }
}
