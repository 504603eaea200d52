import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '@app/common';

/** The pages a browser renders: the account dashboard and Swagger UI (with their assets). */
const PAGES = /^\/(dashboard|docs)(\/|$|\?)/;

/**
 * The browser-facing headers of the dashboard and Swagger UI, in one place: a Content-Security-Policy of the
 * service's own origin only (and PUBLIC_BASE_URL's, the origin the pages' links and "Try it out" call when it
 * differs), no framing (`frame-ancestors 'none'` and `X-Frame-Options: DENY`, against clickjacking), no plugins,
 * no `<base>`, and no Referer (a page's URL never leaves with a request). Swagger UI writes its styles inline
 * (its page's `<style>` and React's style attributes), so its policy allows inline styles; never inline scripts.
 */
export function pageSecurityHeaders(config: AppConfig, path: string): Record<string, string> | undefined {
  const page = PAGES.exec(path)?.[1];
  if (page === undefined) return undefined;
  const own = `'self'${publicOrigin(config)}`;
  const directives = [
    `default-src ${own}`,
    `script-src ${own}`,
    `style-src ${own}${page === 'docs' ? " 'unsafe-inline'" : ''}`,
    // data: for Swagger UI's icons; blob: for the dashboard's preview of a chosen file
    `img-src ${own} data: blob:`,
    `connect-src ${own}`,
    `font-src ${own}`,
    `form-action ${own}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ];
  return {
    'content-security-policy': directives.join('; '),
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
}

/** ` <origin>` of PUBLIC_BASE_URL, for the pages served under another name of the same service; else empty. */
function publicOrigin(config: AppConfig): string {
  try {
    return ` ${new URL(config.publicBaseUrl).origin}`;
  } catch {
    return '';
  }
}

/** Adds pageSecurityHeaders to every answer of the pages' paths (the files, their 404s and redirects). */
export function securePages(fastify: FastifyInstance, config: AppConfig): void {
  fastify.addHook('onSend', async (request, reply, payload) => {
    const headers = pageSecurityHeaders(config, request.url);
    if (headers) void reply.headers(headers);
    return payload;
  });
}
