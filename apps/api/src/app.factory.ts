import type { IncomingMessage } from 'node:http';
import multipart from '@fastify/multipart';
import { NestFactory, Reflector } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import {
  AllExceptionsFilter,
  AppConfig,
  createLogger,
  EnvelopeInterceptor,
  ErrorWriter,
  NestPinoLogger,
  REQUEST_ID_HEADER,
  RequestValidationPipe,
  RouteRegistry,
  requestIdFor,
  ServiceException,
} from '@app/common';
import { ApiModule } from './api.module';
import { UPLOAD_ROUTE } from './image-edit/image-edit.controller';
import { notMultipart, uploadLimits } from './image-edit/read-upload';
import { ClientErrorResponder, requestTimeouts } from './http/client-errors';
import { closeIdleSocketsOnShutdown } from './http/close-idle-sockets';
import { acceptJsonBodiesOnly } from './http/json-body-parser';
import { recordRequestMetrics, serveMetrics } from './http/metrics-endpoint';
import { RequestLogController } from './http/request-log';
import { traceRequests } from './http/request-tracing';
import { securePages } from './http/page-headers';
import { installRequestGate } from './http/request-gate';
import { httpsOptions, installTls } from './http/tls';
import { setupOpenApi } from './openapi/openapi';
import { AddressLimiter } from './rate-limit/address-limiter';

/** Older clients of this API family call `/v1-beta1`; it is the same API as `/v1`. */
const BETA_PREFIX = /^\/v1-beta1(?=\/|$|\?)/;

export interface CreateAppOptions {
  /** Where logs go (tests capture them); standard output by default. */
  logger?: Logger;
}

/**
 * Builds the configured API application, not yet listening: Fastify with request ids, the
 * `/v1-beta1` alias, one error writer (Nest hands it Fastify's errors too), validation, the envelope,
 * and the OpenAPI document at /docs.
 */
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<NestFastifyApplication> {
  const logger = options.logger ?? createLogger(config);
  const routes = new RouteRegistry();
  const errors = new ErrorWriter(logger, routes);
  const clientErrors = new ClientErrorResponder(errors);
  const https = httpsOptions(config.tls);
  const adapter = new FastifyAdapter({
    ...(https && { https }),
    loggerInstance: logger,
    logController: new RequestLogController({ requestIdLogLabel: 'request_id' }),
    genReqId: requestIdFor,
    bodyLimit: config.maxJsonBodyBytes,
    ...requestTimeouts(config),
    // What Node's HTTP parser refuses (and timeouts) is answered in the Error body too.
    clientErrorHandler: clientErrors.handle,
    trustProxy: config.trustProxy,
    rewriteUrl: (request: IncomingMessage) => (request.url ?? '/').replace(BETA_PREFIX, '/v1'),
    // Errors Fastify raises before routing (a malformed URL) never reach Nest's filters.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) =>
      errors.write(error, request, reply),
  });
  const fastify = adapter.getInstance();
  acceptJsonBodiesOnly(fastify, config.maxJsonDepth);
  clientErrors.track(fastify, config.bodyIdleTimeoutMs);
  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url));
  closeIdleSocketsOnShutdown(fastify);
  recordRequestMetrics(fastify);
  traceRequests(fastify);
  securePages(fastify, config);
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });

  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.forRoot(config), adapter, {
    logger: new NestPinoLogger(logger),
    abortOnError: false,
    // Nest's parsers would add urlencoded forms; the JSON parser is acceptJsonBodiesOnly's.
    bodyParser: false,
  });
  installRequestGate(app);
  installTls(app, config.tls, logger);
  serveMetrics(fastify, config, errors, app.get(AddressLimiter));
  // Uploads (POST /v1/image/edit/upload): one file up to the input size cap, one small JSON field. The
  // multipart parser is registered for the whole app, so every other route refuses multipart bodies (415).
  await app.register(multipart, { limits: uploadLimits(config.fetchMaxBytes, config.maxJsonBodyBytes) });
  // One rule for multipart, decided before any body is read: the upload route takes it and nothing else, every
  // other route refuses it (415). Unknown paths pass on to their 404.
  fastify.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    const multipartType = /^multipart\/form-data\b/i.test(request.headers['content-type'] ?? '');
    if (route === UPLOAD_ROUTE && !multipartType) done(notMultipart());
    else if (route !== undefined && route !== UPLOAD_ROUTE && multipartType) {
      done(new ServiceException('UNSUPPORTED_MEDIA_TYPE'));
    } else done();
  });
  app.useGlobalFilters(new AllExceptionsFilter(errors));
  app.useGlobalPipes(new RequestValidationPipe());
  app.useGlobalInterceptors(new EnvelopeInterceptor(app.get(Reflector)));
  // SIGTERM and SIGINT only: profilers and reloaders use SIGUSR2 and must not stop the service. After the
  // shutdown hooks, exit with code 0 through process.exit, which flushes the logger's last lines.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  setupOpenApi(app);
  await app.init();
  return app;
}
