import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How often, while closing, keep-alive sockets that have finished their response are closed. */
const SWEEP_MS = 200;
/** After this, a shutdown closes every socket, also one whose client stalls in the middle of a response. */
const DEADLINE_MS = 30_000;

/**
 * Lets a shutdown finish: sockets between requests (keep-alive) are closed at once and again every
 * {@link SWEEP_MS} while the server drains, and sockets still writing a response are left to finish it. Node's
 * own `closeIdleConnections()` (Fastify's default) misses some keep-alive sockets after a streamed response, and
 * one such socket kept the server (and a rolling deploy) waiting forever. After {@link DEADLINE_MS} every socket
 * is closed, so that a client stalling mid-response cannot hold a shutdown either.
 */
export function closeIdleSocketsOnShutdown(fastify: FastifyInstance): void {
  const sockets = new Set<Socket>();
  fastify.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  fastify.addHook('preClose', (done) => {
    const sweep = () => {
      for (const socket of sockets) {
        // A socket serving a response carries it as `_httpMessage` until the response is done.
        const response = (socket as Socket & { _httpMessage?: { writableFinished?: boolean } | null })._httpMessage;
        if (!response || response.writableFinished) socket.destroy();
      }
    };
    sweep();
    const timer = setInterval(sweep, SWEEP_MS).unref();
    const deadline = setTimeout(() => {
      for (const socket of sockets) socket.destroy();
    }, DEADLINE_MS).unref();
    (fastify.server as Server).once('close', () => {
      clearInterval(timer);
      clearTimeout(deadline);
    });
    done();
  });
}
