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

/** What the clients below wrote to their log (the generator's own words go there, never to the client). */
let logged: string[] = [];

function client(overrides: Parameters<typeof generativeConfig>[0] = {}) {
  logged = [];
  return new GeneratorClient({
    kind: 'Test generator',
    config: generativeConfig({ url: fake.url, ...overrides }),
    headers: { authorization: 'Bearer sk-secret-key-123456' },
    errorMessage: (_status, body) => (body as { message?: string })?.message,
    log: (line) => logged.push(line),
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
      expect(error.message).toBe(`Test generator at ${host} answered ${status} (${method} ${path})`);
      expect(logged).toEqual([`${error.message}; it said: no ${status}`]);
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
    expect(error.message).toMatch(/answered 503 \(GET \/x\)$/);
    expect(Date.now() - started).toBeLessThan(500);
    expect(fake.requests).toHaveLength(1);
  });

  it('takes credentials out of the URL (Basic auth), and out of every message', async () => {
    const url = fake.url.replace('http://', 'http://atelier:pa55word-xyz@');
    const lines: string[] = [];
    const basic = new GeneratorClient({
      kind: 'Test generator',
      config: generativeConfig({ url }),
      errorMessage: () => 'echo: atelier:pa55word-xyz and pa55word-xyz',
      log: (line) => lines.push(line),
    });
    await basic.session(new AbortController().signal).request({ method: 'GET', path: '/ok' });
    expect(fake.requests[0].headers.authorization).toBe(
      `Basic ${Buffer.from('atelier:pa55word-xyz').toString('base64')}`,
    );
    expect(basic.label).toBe(`Test generator at ${new URL(fake.url).host}`);
    fake.fail('GET /x', { status: 403, body: {} });
    const error = await rejected(basic.session(new AbortController().signal).request({ method: 'GET', path: '/x' }));
    expect(error.message).toBe(`Test generator at ${new URL(fake.url).host} answered 403 (GET /x)`);
    expect(lines).toEqual([`${error.message}; it said: echo: [redacted] and [redacted]`]);
  });

  it("keeps the generator's words out of the message, and logs them on one line of at most 200 characters", async () => {
    const said = `Traceback\r\n\u001b[31m${'very long traceback '.repeat(100)}END`;
    fake.fail('GET /x', { status: 400, body: { message: said } });
    const error = await rejected(client().session(new AbortController().signal).request({ method: 'GET', path: '/x' }));
    expect(error.message).toMatch(/^Test generator at 127\.0\.0\.1:\d+ answered 400 \(GET \/x\)$/);
    expect(JSON.stringify(error)).not.toContain('traceback');
    const line = logged[0].split('; it said: ')[1];
    expect(line).toMatch(/^Traceback \[31mvery long traceback .*\.\.\.$/);
    expect(line).toHaveLength(200);
    expect(line).not.toMatch(/[\r\n\u001b]/);
  });

  it('gives up an answer past GENERATIVE_MAX_RESPONSE_BYTES, declared or streamed, with a 502 naming the generator', async () => {
    const big = Buffer.alloc(64 * 1024, 0x41);
    fake.fail('GET /declared', { status: 200, body: big });
    const declared = await rejected(
      client({ maxResponseBytes: 4096 })
        .session(new AbortController().signal)
        .request({ method: 'GET', path: '/declared' }),
    );
    expect(declared.status).toBe(502);
    expect(declared.codeName).toBe('GENERATOR_FAILED');
    expect(declared.retryable).toBe(false);
    expect(declared.message).toMatch(
      /^Test generator at 127\.0\.0\.1:\d+ answered more than 4096 bytes \(GENERATIVE_MAX_RESPONSE_BYTES\) to GET \/declared$/,
    );
    // chunked, without a length: read as it arrives and dropped at the limit, not retried
    fake.requests.length = 0;
    fake.fail('GET /streamed', { stream: { chunk: Buffer.alloc(16 * 1024, 0x42), times: 1_000_000 } });
    const streamed = await rejected(
      client({ maxResponseBytes: 100_000 })
        .session(new AbortController().signal)
        .request({ method: 'GET', path: '/streamed' }),
    );
    expect(streamed.message).toMatch(
      /answered more than 100000 bytes \(GENERATIVE_MAX_RESPONSE_BYTES\) to GET \/streamed$/,
    );
    expect(fake.requests).toHaveLength(1);
    // the fake saw its connection closed long before the million chunks it meant to send
    expect(await fake.streamEnded()).toBeLessThan(1_000_000 * 16 * 1024);
  });

  it("refuses a URL outside the generator's own origin before any connection, and sends its key only there", async () => {
    const other = await new PlainFake().start('127.0.0.2'); // a live listener on another origin
    try {
      const session = client().session(new AbortController().signal);
      for (const url of [
        `${other.url}/files/a.png`,
        'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
        `${fake.url.replace('http://', 'http://x@')}`.replace(/:\d+$/, ':1'),
        `https://${new URL(fake.url).host}/files/a.png`,
      ]) {
        const error = await rejected(session.request({ method: 'GET', path: url }));
        expect(error.codeName).toBe('GENERATOR_FAILED');
        expect(error.retryable).toBe(false);
        expect(error.message).toMatch(
          /^Test generator at 127\.0\.0\.1:\d+ answered with a URL outside its own origin: not fetched$/,
        );
        expect(logged.at(-1)).toBe(`${error.message}; it said: ${new URL(url).host}`);
      }
      expect(other.connections).toBe(0);
      expect(fake.connections).toBe(0);
      const own = await session.request({ method: 'GET', path: `${fake.url}/files/a.png` });
      expect(own.status).toBe(200);
      expect(fake.requests[0].headers.authorization).toBe('Bearer sk-secret-key-123456');
    } finally {
      await other.close();
    }
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
