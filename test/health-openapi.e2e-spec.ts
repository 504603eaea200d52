import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderOpenApi } from '../apps/api/src/openapi/write-openapi';
import { DatabaseHealth } from '@app/database';
import { testRedisUrl } from './helpers/databases';
import { call } from './helpers/http';
import { startTestApp, type TestApp } from './helpers/test-app';

describe('health checks', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers liveness without a key', async () => {
    const res = await call(t.url, 'GET', '/health/live');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { status: 'ok' } });
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });

  it('answers readiness with the database (and Redis when configured), and the state of each model', async () => {
    const res = await call(t.url, 'GET', '/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        status: 'ok',
        checks: { database: 'ok', redis: testRedisUrl ? 'ok' : 'not_configured' },
        // verified at start, loaded at its first use: not a reason to be unready
        models: {
          segmentation: 'not_loaded',
          'face-detection': 'not_loaded',
          'text-detection': 'not_loaded',
          'super-resolution': 'not_loaded',
        },
      },
    });
  });

  it('checks the database at most about once a second however many probes come (probes skip every budget)', async () => {
    const database = t.app.get(DatabaseHealth);
    const ping = database.ping.bind(database);
    let pings = 0;
    database.ping = () => {
      pings++;
      return ping();
    };
    try {
      const began = performance.now();
      const answers = [];
      for (let round = 0; round < 5; round++) {
        answers.push(...(await Promise.all(Array.from({ length: 20 }, () => call(t.url, 'GET', '/health/ready')))));
      }
      const seconds = (performance.now() - began) / 1000;
      expect(answers.map((answer) => answer.status)).toEqual(Array(100).fill(200));
      // one check per started second at most (and the one possibly cached before)
      expect(pings).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    } finally {
      database.ping = ping;
    }
  });

  it('stays ready with a model whose file is wrong, reports it not installed, and logs the file at start', async () => {
    const other = await startTestApp({
      SEGMENTATION_MODEL: '/nonexistent/u2net.onnx',
      SEGMENTATION_MODEL_SHA256: 'a'.repeat(64),
    });
    try {
      const res = await call(other.url, 'GET', '/health/ready');
      expect(res.status).toBe(200);
      expect(res.body.data.models).toEqual({
        segmentation: 'not_installed',
        'face-detection': 'not_loaded',
        'text-detection': 'not_loaded',
        'super-resolution': 'not_loaded',
      });
      expect(other.logs.join('\n')).toContain(
        'segmentation is not installed: model file /nonexistent/u2net.onnx: missing',
      );
    } finally {
      await other.close();
    }
  });

  it('logs probes at debug, and other requests at info', async () => {
    const quiet = await startTestApp({ LOG_LEVEL: 'info' });
    const verbose = await startTestApp({ LOG_LEVEL: 'debug' });
    try {
      const completions = async (app: TestApp) => {
        for (const path of ['/health/live', '/health/ready', '/v1/nothing']) {
          await call(app.url, 'GET', path, { headers: { 'x-request-id': `probe${path.replaceAll('/', '-')}` } });
        }
        return app.logs
          .map((line) => JSON.parse(line))
          .filter((line) => line.msg === 'request completed')
          .map((line) => [line.request_id, line.level]);
      };
      // At load most requests are probes: at the default level they leave no line.
      expect(await completions(quiet)).toEqual([['probe-v1-nothing', 'info']]);
      expect(await completions(verbose)).toEqual([
        ['probe-health-live', 'debug'],
        ['probe-health-ready', 'debug'],
        ['probe-v1-nothing', 'info'],
      ]);
    } finally {
      await quiet.close();
      await verbose.close();
    }
  });

  it('answers 503 when the database is gone', async () => {
    const other = await startTestApp();
    const { DataSource } = await import('typeorm');
    await other.app.get(DataSource).destroy();
    try {
      const res = await call(other.url, 'GET', '/health/ready');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error_code: '9503', error_type: 'runtime_settings' });
      expect(res.body.error_details.checks.database).toBe('failing');
    } finally {
      await other.app.close().catch(() => undefined);
      await other.close().catch(() => undefined);
    }
  });
});

describe('OpenAPI document', () => {
  it('is committed as openapi.json and current with the code (run `npm run openapi` after API changes)', async () => {
    const committed = readFileSync(resolve(__dirname, '../openapi.json'), 'utf8');
    expect(JSON.parse(await renderOpenApi())).toEqual(JSON.parse(committed));
  });

  it('serves a Swagger UI that keeps no key in the browser', async () => {
    const t = await startTestApp();
    try {
      const page = await call(t.url, 'GET', '/docs');
      expect(page.status).toBe(200);
      const init = await call(t.url, 'GET', '/docs/swagger-ui-init.js');
      expect(init.status).toBe(200);
      // The UI's options are inlined in its init script; with persistAuthorization the key would be kept in the
      // browser's local storage, for any script of the origin to read, after the tab is closed.
      const options = /"customOptions":\s*(\{[^}]*\})/.exec(init.text)?.[1];
      expect(options).toBeDefined();
      expect(JSON.parse(options!).persistAuthorization ?? false).toBe(false);
      // The service's bare address leads a browser to the dashboard, without a key.
      const root = await fetch(`${t.url}/`, { redirect: 'manual' });
      expect(root.status).toBe(302);
      expect(root.headers.get('location')).toBe('/dashboard');
      expect(root.headers.get('x-request-id')).toBeTruthy();
    } finally {
      await t.close();
    }
  });

  it('documents bearer auth, the envelope and the error bodies', async () => {
    const doc = JSON.parse(await renderOpenApi());
    expect(doc.components.securitySchemes.bearer.scheme).toBe('bearer');
    const create = doc.paths['/v1/keys'].post;
    expect(create.security).toEqual([{ bearer: [] }]);
    expect(create.responses['200'].content['application/json'].schema.required).toEqual(['data']);
    for (const status of ['401', '403', '422', '429']) expect(create.responses[status]).toBeDefined();
    expect(doc.components.schemas.ErrorBodyDto.required).toEqual([
      'error_code',
      'error_type',
      'error_message',
      'error_details',
    ]);
  });
});
