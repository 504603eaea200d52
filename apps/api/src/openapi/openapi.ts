import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { AppConfig } from '@app/common';
import { SampleImages } from '@app/storage';
import { applyRequestExamples, requestExamples } from './request-examples';

const DESCRIPTION = `Self-hosted image processing: scene generation, image editing, batch editing and storage connections.

Every success body is \`{"data": ...}\`; every error body is the Error object (\`error_code\`, \`error_type\`,
\`error_message\`, \`error_details\`), except 429, which wraps it in \`detail\`. Every route also answers under
\`/v1-beta1\`. Send \`Authorization: Bearer <API key>\`.

Every operation has an example that works on a fresh install when the operations are tried in this page's order: the
images are the service's own samples (\`GET /samples/<name>\`, read from its disk, no network needed), the ids those a
fresh install hands out.`;

/** Groups in the order Swagger UI shows them, which is the order the examples are meant to be tried in. */
const TAGS: [name: string, description: string][] = [
  ['Health', 'Probes for load balancers and orchestrators; no key.'],
  ['Samples', 'Small product pictures the service ships, the inputs of the examples; no key.'],
  ['API keys', 'Keys of your account (scope `admin`).'],
  ['Storage', 'Named connections to S3, GCS and web folders (scope `storage`).'],
  ['Scene', 'Product scenes: the object placed on a new background (scope `image_generation`).'],
  ['Image editing', 'One image at once, or a batch or an asynchronous edit as a task (scope `image_editing`).'],
  ['Tasks', "Your account's tasks and their results and errors, page by page (scope `image_editing`)."],
  ['Temporary files', 'Results without an output destination, for 24 hours; no key, the random name is the secret.'],
  ['Webhooks', "The account's webhook signing secret (scope `admin`)."],
  ['Usage', "A key's calls, quota and rate limit, and the account's recent task errors; not counted as calls."],
];

/**
 * The OpenAPI document of the API as it is registered in `app`, for the app's own PUBLIC_BASE_URL: the server, and
 * the examples' URLs. The committed openapi.json is this document for the default configuration.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const baseUrl = app.get(AppConfig).publicBaseUrl;
  const builder = new DocumentBuilder()
    .setTitle('Atelier')
    .setDescription(DESCRIPTION)
    .setVersion('v1')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'API key',
      description: 'An Atelier API key (sk_...).',
    })
    .addServer(baseUrl);
  for (const [name, description] of TAGS) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  const samples = app.get(SampleImages);
  applyRequestExamples(
    document,
    requestExamples(baseUrl, (name) => samples.url(name)),
  );
  return document;
}

/** Swagger UI at /docs (bearer auth), the document at /docs/openapi.json, and `/` leading to the dashboard. */
export function setupOpenApi(app: NestFastifyApplication): void {
  // A browser pointed at the service's address finds the account dashboard (which links to the documentation).
  app
    .getHttpAdapter()
    .getInstance()
    .get('/', (_request, reply) => reply.redirect('/dashboard', 302));
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs/openapi.json',
    raw: ['json'],
    customSiteTitle: 'Atelier API',
    // Not persisted: Swagger UI would keep the key in the browser's local storage, readable by any script of the
    // origin and left behind after the tab is closed.
    swaggerOptions: { persistAuthorization: false },
  });
}
