import { accessSync, constants } from 'node:fs';
import { resolve } from 'node:path';
import type { Reader } from './config-reader';

/** Native HTTPS of the API (docs/configuration.md, "HTTPS"); absent: plain HTTP (a reverse proxy may add TLS). */
export interface TlsConfig {
  /** PEM certificate chain, absolute path; reread when it changes. */
  certFile: string;
  /** PEM private key, absolute path; reread when it changes. */
  keyFile: string;
  /** `Strict-Transport-Security` max-age in seconds; 0: no header. */
  hstsMaxAgeSeconds: number;
  /** How often the two files are checked for a change, in milliseconds. */
  reloadIntervalMs: number;
}

/** `TLS_CERT_FILE` and `TLS_KEY_FILE`: both or neither, each a readable file. */
export function readTls(read: Reader): TlsConfig | undefined {
  const cert = read.string('TLS_CERT_FILE');
  const key = read.string('TLS_KEY_FILE');
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined) {
    read.problem(cert === undefined ? 'TLS_CERT_FILE' : 'TLS_KEY_FILE', 'TLS_CERT_FILE and TLS_KEY_FILE go together');
    return undefined;
  }
  for (const [name, path] of [
    ['TLS_CERT_FILE', cert],
    ['TLS_KEY_FILE', key],
  ] as const) {
    try {
      accessSync(resolve(path), constants.R_OK);
    } catch {
      read.problem(name, `"${path}" is not a readable file`);
    }
  }
  return {
    certFile: resolve(cert),
    keyFile: resolve(key),
    hstsMaxAgeSeconds: read.integer('HSTS_MAX_AGE', 15_552_000, 0, 63_072_000),
    reloadIntervalMs: read.integer('TLS_RELOAD_INTERVAL_MS', 10_000, 100, 3_600_000),
  };
}
