import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppConfig, ErrorWriter, ServiceException } from '@app/common';

/** After the answer, a client that keeps its side open this long is disconnected. */
const LINGER_MS = 2_000;

/**
 * The HTTP server options that bound how long a client may take to send a request: Node answers a request whose
 * headers (or whole request, body included) have not arrived in time with a client error, a 408. Node looks for
 * such requests every `connectionsCheckingInterval` (30 s by default, which would make a 1 s timeout a 31 s one).
 */
export function requestTimeouts(config: AppConfig) {
  const shortest = Math.min(config.headersTimeoutMs, config.requestTimeoutMs);
  return {
    requestTimeout: config.requestTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, Math.max(25, Math.floor(shortest / 4))),
    },
  };
}

/**
 * Answers what Node's HTTP server refuses before Fastify sees a request (Fastify's `clientErrorHandler`): a
 * malformed request line, `Content-Length` with `Transfer-Encoding`, oversized headers (431), and the timeouts
 * (408), in the service's Error body through the ErrorWriter. A timeout can strike while a request's body is still
 * arriving: that request's id is used, and nothing is written when its response has begun.
 */
export class ClientErrorResponder {
  private readonly ids = new WeakMap<ServerResponse, string>();
  private readonly answered = new WeakSet<Socket>();

  constructor(private readonly errors: ErrorWriter) {}

  /**
   * Remembers each request's id, for a timeout during its body; and watches a body that is still arriving: when
   * its connection receives nothing for `bodyIdleMs`, the request is answered 408 and the connection closed (a
   * body that stopped would otherwise hold it for the whole-request limit). A slow but moving body is left to
   * that limit. The watch costs one timer per idle period, re-armed while bytes keep coming.
   */
  track(fastify: FastifyInstance, bodyIdleMs: number): void {
    fastify.addHook('onRequest', (request, reply, done) => {
      this.ids.set(reply.raw, request.id);
      if (hasBodyToCome(request)) this.watchBody(request, bodyIdleMs);
      done();
    });
  }

  private watchBody(request: FastifyRequest, idleMs: number): void {
    const message = request.raw;
    const socket = message.socket;
    let seen = socket.bytesRead;
    let timer: NodeJS.Timeout | undefined;
    const stop = () => clearTimeout(timer);
    const check = () => {
      if (message.complete || socket.destroyed) return;
      if (socket.bytesRead !== seen) {
        seen = socket.bytesRead;
        timer = setTimeout(check, idleMs);
        return;
      }
      const seconds = Math.round(idleMs / 100) / 10;
      this.handle(
        Object.assign(
          new ServiceException(
            'REQUEST_TIMEOUT',
            `The request body stopped arriving: nothing came for ${seconds} s (BODY_IDLE_TIMEOUT_MS).`,
          ),
          { code: 'ERR_BODY_IDLE' },
        ),
        socket,
      );
    };
    timer = setTimeout(check, idleMs);
    timer.unref();
    message.once('end', stop);
    message.once('close', stop);
  }

  /** Answers a client error on its socket in the Error body (Node's `clientError`, and the body watch above). */
  readonly handle = (error: Error & { code?: string }, socket: Socket): void => {
    // A reset connection has no one to answer; a second parser error after the answer needs none.
    if (error.code === 'ECONNRESET' || socket.destroyed || this.answered.has(socket)) return;
    this.answered.add(socket);
    // Node keeps the response in progress on the socket, as `_httpMessage`, until it is done.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const requestId = (inFlight && this.ids.get(inFlight)) ?? randomUUID();
    this.errors.writeRaw(error, socket, requestId);
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

/** Whether a request announces a body that has not fully arrived yet. */
function hasBodyToCome(request: FastifyRequest): boolean {
  const headers = request.headers;
  const announced = headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
  return announced && !request.raw.complete;
}
