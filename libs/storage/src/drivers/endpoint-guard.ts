import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction } from 'node:net';

/**
 * How a driver keeps to the address policy at an endpoint the user gave (StorageDriverFactory.guardOf): the literal
 * address judged once, and every name at each connection (pinned lookup).
 */
export interface EndpointGuard {
  resolve(url: URL): Promise<unknown>;
  lookup: LookupFunction;
}

/** Keep-alive agents whose connections go only to addresses the guard's lookup gives (any, without a guard). */
export function pinnedAgents(guard?: EndpointGuard): { http: HttpAgent; https: HttpsAgent } {
  return {
    http: new HttpAgent({ keepAlive: true, lookup: guard?.lookup }),
    https: new HttpsAgent({ keepAlive: true, lookup: guard?.lookup }),
  };
}

/**
 * The endpoint judged once, before the first request (a literal IP never goes through `lookup`): await it before
 * each request, where its refusal is the answer. Never an unhandled rejection while no request waits.
 */
export function judgedOnce(guard: EndpointGuard | undefined, endpoint: string | undefined): Promise<unknown> {
  const judged = guard && endpoint ? guard.resolve(new URL(endpoint)) : Promise.resolve();
  judged.catch(() => undefined);
  return judged;
}
