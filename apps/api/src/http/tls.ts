import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import type { Server as HttpsServer, ServerOptions } from 'node:https';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { TlsConfig } from '@app/common';
import type { Logger } from 'pino';

/** TLS 1.2 and 1.3 only; Node's default cipher list for them (no RC4, no 3DES, forward secrecy first). */
const MIN_VERSION = 'TLSv1.2';

function readPair(tls: TlsConfig): { cert: Buffer; key: Buffer } {
  return { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) };
}

/** The listener's TLS options from TLS_CERT_FILE and TLS_KEY_FILE; undefined: plain HTTP. */
export function httpsOptions(tls: TlsConfig | undefined): ServerOptions | undefined {
  return tls && { ...readPair(tls), minVersion: MIN_VERSION };
}

/**
 * With native HTTPS: `Strict-Transport-Security` on every answer (HSTS_MAX_AGE), and the certificate and key read
 * again when either file changes (checked every TLS_RELOAD_INTERVAL_MS), so that a renewed certificate (certbot,
 * cert-manager) is served without a restart. A pair that cannot be read or does not match is logged and the one in
 * use kept; connections already open keep theirs.
 */
export function installTls(app: NestFastifyApplication, tls: TlsConfig | undefined, logger: Logger): void {
  if (!tls) return;
  const fastify = app.getHttpAdapter().getInstance();
  if (tls.hstsMaxAgeSeconds > 0) {
    const hsts = `max-age=${tls.hstsMaxAgeSeconds}; includeSubDomains`;
    fastify.addHook('onSend', async (_request, reply, payload) => {
      void reply.header('strict-transport-security', hsts);
      return payload;
    });
  }
  const server = fastify.server as unknown as HttpsServer;
  const reload = () => {
    try {
      server.setSecureContext({ ...readPair(tls), minVersion: MIN_VERSION });
      logger.info(`TLS certificate reloaded from ${tls.certFile}`);
    } catch (error) {
      logger.warn(`TLS certificate not reloaded (the one in use is kept): ${(error as Error).message}`);
    }
  };
  const options = { interval: tls.reloadIntervalMs, persistent: false };
  const changed = (now: { mtimeMs: number }, before: { mtimeMs: number }) => {
    if (now.mtimeMs !== before.mtimeMs) reload();
  };
  watchFile(tls.certFile, options, changed);
  watchFile(tls.keyFile, options, changed);
  fastify.addHook('onClose', async () => {
    unwatchFile(tls.certFile, changed);
    unwatchFile(tls.keyFile, changed);
  });
}
