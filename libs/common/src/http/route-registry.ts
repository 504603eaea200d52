/**
 * Remembers every route's method and URL pattern as Fastify registers it, so that a request
 * to a known path with an unknown method can be answered 405 with `Allow` instead of 404.
 */
export class RouteRegistry {
  private readonly routes: { method: string; pattern: RegExp }[] = [];

  add(methods: string | string[], url: string): void {
    const source = url
      .split('/')
      .map((segment) =>
        segment.startsWith(':') || segment === '*' ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    const pattern = new RegExp(`^${source}/?$`);
    for (const method of Array.isArray(methods) ? methods : [methods]) {
      this.routes.push({ method: method.toUpperCase(), pattern });
    }
  }

  /** Methods registered for a concrete path (query string ignored), sorted. */
  allowedMethods(path: string): string[] {
    const bare = path.split('?')[0];
    const methods = new Set(this.routes.filter((route) => route.pattern.test(bare)).map((route) => route.method));
    return [...methods].sort();
  }
}
