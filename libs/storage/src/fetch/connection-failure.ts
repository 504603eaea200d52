import { Logger } from '@nestjs/common';

const logger = new Logger('Connections');

/**
 * Logs why a connection to a user-given address failed: the system's message and code, which may name the
 * resolved address and port. Only the server log gets them. The client is told one message for every such cause
 * (refused, reset, timed out, unreachable, a name that does not resolve), so that answers cannot tell a closed
 * port from a filtered one or an unknown name from a silent host: with them, any key could map the network that
 * FETCH_ALLOW_HOSTS opens. `target` is a URL as describeUrl writes it, or a store's name.
 */
export function logConnectionFailure(target: string, error: unknown): void {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const cause = typeof message === 'string' && message !== '' ? message : String(error);
  logger.log(`Connection to ${target} failed: ${cause}${typeof code === 'string' ? ` (${code})` : ''}`);
}
