import { CallHandler, ExecutionContext, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Observable, map } from 'rxjs';

const RAW_RESPONSE = 'atelier:raw-response';

/** Marks a handler whose return value is sent as it is (files, redirects), not enveloped. */
export const RawResponse = () => SetMetadata(RAW_RESPONSE, true);

/** Wraps every success body in the contract's envelope: `{"data": ...}`. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (this.reflector.getAllAndOverride<boolean>(RAW_RESPONSE, [context.getHandler(), context.getClass()])) {
      return next.handle();
    }
    return next.handle().pipe(map((data: unknown) => ({ data: data ?? null })));
  }
}
