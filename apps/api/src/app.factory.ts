import type { IncomingMessage } from 'node:http';
import multipart from '@fastify/multipart';
import { NestFactory, Reflector } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
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
import { uploadLimits } from './image-edit/read-upload';
import { closeIdleSocketsOnShutdown } from './http/close-idle-sockets';
import { installRequestGate } from './http/request-gate';
import { setupOpenApi } from './openapi/openapi';

/** One log line per request, when it completes (with status and response time). */
class CompletionOnlyLogController extends LogController {
  override incomingRequest(): void {}
}

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
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    logController: new CompletionOnlyLogController({ requestIdLogLabel: 'request_id' }),
    genReqId: requestIdFor,
    bodyLimit: config.maxJsonBodyBytes,
    trustProxy: config.trustProxy,
    rewriteUrl: (request: IncomingMessage) => (request.url ?? '/').replace(BETA_PREFIX, '/v1'),
    // Errors Fastify raises before routing (a malformed URL) never reach Nest's filters.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) =>
      errors.write(error, request, reply),
  });
  const fastify = adapter.getInstance();
  // JSON only: a text/plain body is a 415, not a string that fails validation.
  fastify.removeContentTypeParser('text/plain');
  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url));
  closeIdleSocketsOnShutdown(fastify);
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });

  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.forRoot(config), adapter, {
    logger: new NestPinoLogger(logger),
    abortOnError: false,
  });
  installRequestGate(app);
  // Uploads (POST /v1/image/edit/upload): one file up to the input size cap, one small JSON field. The
  // multipart parser is registered for the whole app, so every other route refuses multipart bodies (415).
  await app.register(multipart, { limits: uploadLimits(config.fetchMaxBytes, config.maxJsonBodyBytes) });
  fastify.addHook('preValidation', (request, reply, done) => {
    if (request.isMultipart() && request.routeOptions.url !== UPLOAD_ROUTE) {
      done(new ServiceException('UNSUPPORTED_MEDIA_TYPE'));
      return;
    }
    done();
  });
  app.useGlobalFilters(new AllExceptionsFilter(errors));
  app.useGlobalPipes(new RequestValidationPipe());
  app.useGlobalInterceptors(new EnvelopeInterceptor(app.get(Reflector)));
  // SIGTERM and SIGINT only: profilers and reloaders use SIGUSR2 and must not stop the service. After the
  // shutdown hooks, exit with code 0 through process.exit, which flushes the logger's last lines.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  setupOpenApi(app, config);
  await app.init();
  return app;
}
