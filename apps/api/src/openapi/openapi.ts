import type { INestApplication } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { AppConfig } from '@app/common';

const DESCRIPTION = `Self-hosted image processing: scene generation, image editing, batch editing and storage connections.

Every success body is \`{"data": ...}\`; every error body is the Error object (\`error_code\`, \`error_type\`,
\`error_message\`, \`error_details\`), except 429, which wraps it in \`detail\`. Every route also answers under
\`/v1-beta1\`. Send \`Authorization: Bearer <API key>\`.`;

/** The OpenAPI document of the API as it is registered in `app`. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Atelier')
    .setDescription(DESCRIPTION)
    .setVersion('v1')
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'API key',
      description: 'An Atelier API key (sk_...).',
    })
    .build();
  return SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
}

/** Swagger UI at /docs (bearer auth), the document at /docs/openapi.json, and `/` leading to the UI. */
export function setupOpenApi(app: NestFastifyApplication, config: AppConfig): void {
  // A browser pointed at the service's address finds the API's own documentation.
  app
    .getHttpAdapter()
    .getInstance()
    .get('/', (_request, reply) => reply.redirect('/docs', 302));
  const document = buildOpenApiDocument(app);
  document.servers = [{ url: config.publicBaseUrl }];
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'docs/openapi.json',
    raw: ['json'],
    customSiteTitle: 'Atelier API',
    // Not persisted: Swagger UI would keep the key in the browser's local storage, readable by any script of the
    // origin and left behind after the tab is closed.
    swaggerOptions: { persistAuthorization: false },
  });
}
