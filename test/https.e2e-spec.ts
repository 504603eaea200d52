import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * Native HTTPS (TLS_CERT_FILE, TLS_KEY_FILE): certificates made by the test with openssl (self-signed for
 * 127.0.0.1), TLS 1.2+ only, HSTS on every answer, and a renewed certificate served without a restart.
 */

let folder: string;
let app: TestApp;
let base: string;

/** A self-signed certificate for 127.0.0.1 written to `<folder>/<name>.{crt,key}`. */
function makeCertificate(name: string, commonName: string): { cert: string; key: string } {
  const cert = join(folder, `${name}.crt`);
  const key = join(folder, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  peer: string;
}

/** GET over TLS, trusting only `ca`; `maxVersion` to try an old protocol. */
function get(path: string, ca: Buffer, maxVersion?: 'TLSv1.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      { ca, ...(maxVersion && { maxVersion, minVersion: 'TLSv1' }), agent: false },
      (res) => {
        const peer = (res.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '';
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, peer: String(peer) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'atelier-tls-'));
  const { cert, key } = makeCertificate('live', 'atelier-first');
  app = await startTestApp({ TLS_CERT_FILE: cert, TLS_KEY_FILE: key, TLS_RELOAD_INTERVAL_MS: '100' });
  base = app.url.replace(/^http:/, 'https:');
});

afterAll(async () => {
  await app?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('native HTTPS', () => {
  it('serves the API over TLS with HSTS, and its own URLs are https', async () => {
    const answer = await get('/health/live', readFileSync(join(folder, 'live.crt')));
    expect(answer.status).toBe(200);
    expect(answer.peer).toBe('atelier-first');
    expect(answer.headers['strict-transport-security']).toBe('max-age=15552000; includeSubDomains');
    expect(app.config.publicBaseUrl).toMatch(/^https:\/\//);
  });

  it('refuses plain HTTP and protocols older than TLS 1.2', async () => {
    const plain = await fetch(app.url + '/health/live').then(
      (response) => response.status,
      () => 'refused',
    );
    expect(plain).not.toBe(200);
    await expect(get('/health/live', readFileSync(join(folder, 'live.crt')), 'TLSv1.1')).rejects.toThrow();
  });

  it('serves a renewed certificate without a restart', async () => {
    const renewed = makeCertificate('next', 'atelier-renewed');
    // as certbot and cert-manager do: the new files replace the old ones
    renameSync(renewed.key, join(folder, 'live.key'));
    renameSync(renewed.cert, join(folder, 'live.crt'));
    const ca = readFileSync(join(folder, 'live.crt'));
    const deadline = Date.now() + 5000;
    let peer = '';
    while (Date.now() < deadline) {
      peer = await get('/health/live', ca).then(
        (answer) => answer.peer,
        () => '',
      );
      if (peer === 'atelier-renewed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(peer).toBe('atelier-renewed');
    expect(app.logs.some((line) => line.includes('TLS certificate reloaded'))).toBe(true);
  });

  it('refuses a certificate without its key at start', async () => {
    await expect(startTestApp({ TLS_CERT_FILE: join(folder, 'live.crt') })).rejects.toThrow(/TLS_KEY_FILE/);
  });
});
