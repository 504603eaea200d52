import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Answer, FakeServer, type RecordedRequest } from '../../../../test/helpers/fake-generators/fake-server';
import { generativeConfig, rejection } from '../../../../test/helpers/fake-generators/jobs';
import { rejected } from '../../../../test/helpers/rejected';
import { GeneratorClient } from './generator-client';

/** A generator that answers 200 `{"ok": true}` to everything no fault catches. */
class PlainFake extends FakeServer {
  protected async handle(_request: RecordedRequest): Promise<Answer> {
    return { status: 200, body: { ok: true } };
  }
}

let fake: PlainFake;
beforeEach(async () => {
  fake = await new PlainFake().start();
});
afterEach(() => fake.close());

function client(overrides: Parameters<typeof generativeConfig>[0] = {}) {
  return new GeneratorClient({
    kind: 'Test generator',
    config: generativeConfig({ url: fake.url, ...overrides }),
    headers: { authorization: 'Bearer sk-secret-key-123456' },
    errorMessage: (_status, body) => (body as { message?: string })?.message,
  });
}

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('GeneratorClient', () => {
  it('does not retry what will not pass (400, 500), nor a POST that met a 502', async () => {
    for (const [method, status] of [
      ['GET', 400],
      ['GET', 500],
      ['POST', 502],
    ] as const) {
      fake.requests.length = 0;
      const path = `/e${status}`;
      fake.fail(`${method} ${path}`, { status, body: { message: `no ${status}` } }, 5);
      const json = method === 'POST' ? {} : undefined;
      const error = await rejected(client().session(new AbortController().signal).request({ method, path, json }));
      const host = new URL(fake.url).host;
      expect(error.message).toBe(`Test generator at ${host} answered ${status}: no ${status} (${method} ${path})`);
      expect(fake.requests).toHaveLength(1);
    }
  });

  it('retries a refused connection config.retries times, then names the generator', async () => {
    const port = await closedPort();
    const started = Date.now();
    const error = await rejected(
      client({ url: `http://127.0.0.1:${port}`, retries: 2 })
        .session(new AbortController().signal)
        .request({ method: 'GET', path: '/x' }),
    );
    expect(error.status).toBe(502);
    expect(error.message).toBe(`Test generator at 127.0.0.1:${port} could not be reached (GET /x: ECONNREFUSED)`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500); // two backoffs: ~250 and ~500 ms less jitter
  });

  it('gives up at once when Retry-After would outlast the time limit', async () => {
    fake.fail('GET /x', { status: 503, body: { message: 'overloaded' }, headers: { 'retry-after': '20' } }, 5);
    const started = Date.now();
    const error = await rejected(
      client({ timeoutMs: 2_000 }).session(new AbortController().signal).request({ method: 'GET', path: '/x' }),
    );
    expect(error.message).toContain('answered 503: overloaded');
    expect(Date.now() - started).toBeLessThan(500);
    expect(fake.requests).toHaveLength(1);
  });

  it('takes credentials out of the URL (Basic auth), and out of every message', async () => {
    const url = fake.url.replace('http://', 'http://atelier:pa55word-xyz@');
    const basic = new GeneratorClient({
      kind: 'Test generator',
      config: generativeConfig({ url }),
      errorMessage: () => 'echo: atelier:pa55word-xyz and pa55word-xyz',
    });
    await basic.session(new AbortController().signal).request({ method: 'GET', path: '/ok' });
    expect(fake.requests[0].headers.authorization).toBe(
      `Basic ${Buffer.from('atelier:pa55word-xyz').toString('base64')}`,
    );
    expect(basic.label).toBe(`Test generator at ${new URL(fake.url).host}`);
    fake.fail('GET /x', { status: 403, body: {} });
    const error = await rejected(basic.session(new AbortController().signal).request({ method: 'GET', path: '/x' }));
    expect(error.message).toBe(
      `Test generator at ${new URL(fake.url).host} answered 403: echo: [redacted] and [redacted] (GET /x)`,
    );
  });

  it("shortens the generator's message to about 300 characters", async () => {
    fake.fail('GET /x', { status: 400, body: { message: `${'very long traceback '.repeat(100)}END` } });
    const error = await rejected(client().session(new AbortController().signal).request({ method: 'GET', path: '/x' }));
    expect(error.message).not.toContain('END');
    expect(error.message.length).toBeLessThan(380);
    expect(error.message).toMatch(/\.\.\. \(GET \/x\)$/);
  });

  it('answers 504 on its own time limit and the abort reason on the job signal, neither retried', async () => {
    fake.fail('GET /slow', { hang: true }, 5);
    const timeout = await rejected(
      client({ timeoutMs: 200 }).session(new AbortController().signal).request({ method: 'GET', path: '/slow' }),
    );
    expect(timeout.codeName).toBe('GENERATOR_TIMEOUT');
    expect(timeout.message).toMatch(/^Test generator at 127\.0\.0\.1:\d+ did not finish within 200 ms$/);
    expect(fake.requests).toHaveLength(1);

    const controller = new AbortController();
    const reason = new Error('over');
    setTimeout(() => controller.abort(reason), 50);
    expect(await rejection(client().session(controller.signal).request({ method: 'GET', path: '/slow' }))).toBe(reason);
    expect(fake.requests).toHaveLength(2);
  });
});
