import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { rateLimitRefusals, ServiceException } from '@app/common';
import { RateLimiter } from './rate-limiter';

/** Applies the caller's rate limit and writes the RateLimit headers on every authenticated response. */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: RateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const principal = http.getRequest<FastifyRequest>().principal;
    if (!principal) return true;
    const decision = await this.limiter.check(principal);
    void http.getResponse<FastifyReply>().headers(decision.headers);
    if (!decision.allowed) {
      rateLimitRefusals.inc();
      throw new ServiceException('RATE_LIMITED', undefined, {}, { 'retry-after': String(decision.retryAfter) });
    }
    return true;
  }
}
