import { describe, expect, it } from 'vitest';
import { RouteRegistry } from './route-registry';

describe('RouteRegistry', () => {
  it('lists the methods of a concrete path, matching parameters and ignoring the query', () => {
    const routes = new RouteRegistry();
    routes.add(['GET', 'HEAD'], '/v1/keys');
    routes.add('POST', '/v1/keys');
    routes.add('DELETE', '/v1/keys/:id');
    expect(routes.allowedMethods('/v1/keys?account=a')).toEqual(['GET', 'HEAD', 'POST']);
    expect(routes.allowedMethods('/v1/keys/42')).toEqual(['DELETE']);
    expect(routes.allowedMethods('/v1/keys/42/more')).toEqual([]);
    expect(routes.allowedMethods('/v1/keysx')).toEqual([]);
  });
});
