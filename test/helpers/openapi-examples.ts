import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The committed document, as a client (or Swagger UI) reads it. */
export type OpenApiDocument = Record<string, any>;

export function committedOpenApi(): OpenApiDocument {
  return JSON.parse(readFileSync(resolve(__dirname, '../../openapi.json'), 'utf8'));
}

export interface DocumentedOperation {
  id: string;
  method: string;
  path: string;
  tag: string;
  operation: Record<string, any>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The operations in the order Swagger UI lists them: grouped by tag in the order of the document's `tags`, and within
 * a tag in the order of `paths` and of the methods under each path.
 */
export function operationsInOrder(document: OpenApiDocument): DocumentedOperation[] {
  const operations: DocumentedOperation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
    // Swagger UI keeps the document's order of the methods under a path, as this does.
    for (const method of Object.keys(item).filter((name) => METHODS.includes(name))) {
      const operation = item[method];
      operations.push({ id: operation.operationId, method, path, tag: operation.tags?.[0] ?? '', operation });
    }
  }
  const tags: string[] = (document.tags ?? []).map((tag: { name: string }) => tag.name);
  const rank = (tag: string) => (tags.includes(tag) ? tags.indexOf(tag) : tags.length);
  // Array.prototype.sort is stable: within a tag the document's own order stays.
  return operations.sort((a, b) => rank(a.tag) - rank(b.tag));
}

/** The lowest 2xx status an operation documents: what trying its example must answer. */
export function successStatus(operation: Record<string, any>): number {
  return Math.min(
    ...Object.keys(operation.responses)
      .map(Number)
      .filter((status) => status >= 200 && status < 300),
  );
}

/** The one value of a named-examples map (`{"try-it": {summary, value}}`), or undefined. */
export function exampleValue(examples: Record<string, { value: unknown }> | undefined): unknown {
  const values = Object.values(examples ?? {});
  return values.length > 0 ? values[0].value : undefined;
}

/** What trying an operation's example sends, read from the document alone. */
export interface ExampleRequest {
  path: string;
  json?: unknown;
  /** multipart/form-data fields, and the sample image its `file` description says to choose. */
  upload?: { data: string; sample: string };
}

/**
 * The request of an operation's example: path parameters filled, query parameters that have an example added, the
 * JSON body or the upload's fields. Throws when a required parameter or the body has no example.
 */
export function exampleRequest(operation: DocumentedOperation): ExampleRequest {
  let path = operation.path;
  const query = new URLSearchParams();
  for (const parameter of operation.operation.parameters ?? []) {
    const value = exampleValue(parameter.examples) ?? parameter.example;
    if (value === undefined) {
      if (parameter.required) throw new Error(`${operation.id}: no example for parameter ${parameter.name}`);
      continue;
    }
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
    else if (parameter.in === 'query') query.set(parameter.name, String(value));
  }
  const request: ExampleRequest = { path: query.size > 0 ? `${path}?${query}` : path };
  const content = operation.operation.requestBody?.content;
  if (!content) return request;
  if (content['application/json']) {
    request.json = exampleValue(content['application/json'].examples) ?? content['application/json'].example;
    if (request.json === undefined) throw new Error(`${operation.id}: no example for its JSON body`);
  } else {
    const properties = content['multipart/form-data'].schema.properties;
    const sample = /GET \/samples\/([\w.-]+)/.exec(properties.file.description ?? '')?.[1];
    if (properties.data.example === undefined || !sample) throw new Error(`${operation.id}: no example upload`);
    request.upload = { data: properties.data.example, sample };
  }
  return request;
}

/** `value` with every occurrence of one base URL in its strings replaced by another. */
export function rebase<T>(value: T, from: string, to: string): T {
  return JSON.parse(JSON.stringify(value).replaceAll(from, to)) as T;
}
