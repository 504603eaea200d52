import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import type { FastifyRequest } from 'fastify';

/**
 * Who may call a route, known to Fastify before the body is read (the request gate authenticates there, while
 * Nest's guards run only after parsing): `key` needs an API key; `public` needs none; `probe` needs none and is
 * not counted against the client address's request budget (health checks). Undefined for routes outside Nest's
 * controllers (the Swagger UI) and for unknown paths.
 */
export type RouteAccess = 'key' | 'public' | 'probe';

/** The member of Fastify's route config that carries the access. */
const ACCESS = 'atelierAccess';

declare module 'fastify' {
  interface FastifyContextConfig {
    [ACCESS]?: RouteAccess;
  }
}

export function routeAccess(request: FastifyRequest): RouteAccess | undefined {
  return request.is404 ? undefined : request.routeOptions.config?.[ACCESS];
}

/**
 * Writes the access into the Fastify route config of a handler, or of every handler of a controller; as with
 * Nest's own metadata, a handler's own marking wins over its controller's.
 */
export function markRouteAccess(access: RouteAccess): ClassDecorator & MethodDecorator {
  const mark = (handler: object, override: boolean) => {
    const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) ?? {}) as Record<string, unknown>;
    if (!override && config[ACCESS] !== undefined) return;
    Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...config, [ACCESS]: access }, handler);
  };
  return (target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (descriptor) {
      mark(descriptor.value as object, true);
      return;
    }
    const prototype = (target as { prototype: object }).prototype;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const member = Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown;
      if (name !== 'constructor' && typeof member === 'function') mark(member, false);
    }
  };
}
