import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  activeTracer,
  runInContext,
  SpanKind,
  SpanStatusCode,
  startRemoteChildSpan,
  type Context,
  type Span,
} from '@app/common';
import { routeAccess } from '../auth/route-access';

/**
 * With tracing on, a server span per HTTP request (docs/operations.md, "Tracing"), named by the method and the
 * route pattern (`POST /v1/image/edit/async`, `GET /v1/image/edit/async/:id`; the method alone where no route
 * matched), never the raw URL, whose path and query carry ids and values. A valid W3C `traceparent` from the
 * client is continued. Health probes and /metrics scrapes (probe routes) are not traced. The span's context is
 * made active in `onRequest` for the rest of the request: Fastify runs the body parser's callback in the
 * asynchronous context it was started in (an AsyncResource), so a body that arrives later stays in the trace.
 */
export function traceRequests(fastify: FastifyInstance): void {
  if (!activeTracer()) return;
  const traced = new WeakMap<FastifyRequest, { span: Span; context: Context }>();
  fastify.addHook('onRequest', (request, reply, done) => {
    if (routeAccess(request) === 'probe') return done();
    const route = request.is404 ? undefined : request.routeOptions.url;
    const started = startRemoteChildSpan(route ? `${request.method} ${route}` : request.method, request.headers, {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': request.method,
        ...(route !== undefined && { 'http.route': route }),
        'url.scheme': request.protocol,
        'atelier.request_id': request.id,
      },
    });
    if (!started) return done();
    traced.set(request, started);
    // The request's completion line names the trace, to go from a slow or failed request's line to its trace.
    if (started.span.isRecording()) {
      request.log = reply.log = request.log.child({ trace_id: started.span.spanContext().traceId });
    }
    runInContext(started.context, done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const trace = traced.get(request);
    if (trace) {
      traced.delete(request);
      trace.span.setAttribute('http.response.status_code', reply.statusCode);
      // Server errors only: a 4xx is the client's mistake, answered as designed.
      if (reply.statusCode >= 500) {
        trace.span.setAttribute('error.type', String(reply.statusCode));
        trace.span.setStatus({ code: SpanStatusCode.ERROR });
      }
      trace.span.end();
    }
    done();
  });
  fastify.addHook('onRequestAbort', (request, done) => {
    const trace = traced.get(request);
    if (trace) {
      traced.delete(request);
      trace.span.setAttribute('error.type', 'aborted');
      trace.span.end();
    }
    done();
  });
}
