import { expect } from 'vitest';
import { call, type ApiResponse } from './http';
import type { TestApp } from './test-app';

/** `POST /v1/image/edit` with a JSON body, as a client sends it (the admin key unless another is given). */
export function editImage(app: TestApp, body: unknown, key = app.adminKey): Promise<ApiResponse> {
  return call(app.url, 'POST', '/v1/image/edit', { key, body });
}

/**
 * GETs a result's `tmp_url` and returns its bytes. Test apps keep the default PUBLIC_BASE_URL (a placeholder
 * port), so the URL's path is fetched from the test server itself.
 */
export async function fetchResult(app: TestApp, url: string): Promise<Buffer> {
  const response = await fetch(`${app.url}${new URL(url).pathname}`);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}
