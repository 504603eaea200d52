import { Writable } from 'node:stream';
import fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { RouteRegistry } from '../http/route-registry';
import { createLogger } from '../logging/logger';
import { ErrorWriter } from './all-exceptions.filter';

const SECRET = 'SECRET-VALUE-4e1f9a';

/** A value a caller sent, quoted by a library in the message of what it throws (class-transformer, a driver). */
function errorQuoting(value: string): Error {
  const error = new TypeError(`Cannot use 'in' operator to search for 'service_account' in {"secret":"${value}"}`);
  return Object.assign(error, { code: 'ERR_SAMPLE', parameters: [value], detail: value });
}

/** Runs one request whose handler throws `error` through the ErrorWriter; returns the response and the log. */
async function writeThrough(error: unknown): Promise<{ status: number; body: string; logs: any[] }> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ logLevel: 'trace' }, sink);
  const writer = new ErrorWriter(logger, new RouteRegistry());
  const app = fastify({ loggerInstance: logger });
  app.setErrorHandler((thrown, request, reply) => writer.write(thrown, request, reply));
  app.get('/fails', () => {
    throw error;
  });
  try {
    const response = await app.inject({ method: 'GET', url: '/fails' });
    return { status: response.statusCode, body: response.body, logs: lines.map((line) => JSON.parse(line)) };
  } finally {
    await app.close();
  }
}

describe('ErrorWriter', () => {
  it('logs an unexpected error by its class, code and stack frames, never its message or members', async () => {
    const { status, body, logs } = await writeThrough(errorQuoting(SECRET));
    expect(status).toBe(500);
    expect(body).not.toContain(SECRET);
    const logged = logs.find((line) => line.msg === 'unhandled error');
    expect(logged.err).toMatchObject({ type: 'TypeError', code: 'ERR_SAMPLE' });
    expect(logged.err.stack).toMatch(/^TypeError\n {4}at /);
    expect(logged.err.stack).toContain('error-writer.spec.ts');
    expect(logs.map((line) => JSON.stringify(line)).filter((line) => line.includes(SECRET))).toEqual([]);
  });

  it('logs no message line even when the stack no longer starts with the message', async () => {
    const error = errorQuoting(SECRET);
    error.message = 'changed after the stack was taken';
    const multiline = new RangeError(`first line\n    at ${SECRET} (evil.js:1:1)`);
    for (const thrown of [error, multiline]) {
      const { logs } = await writeThrough(thrown);
      const logged = logs.find((line) => line.msg === 'unhandled error');
      expect(logged.err.type).toBe(thrown.name);
      expect(logs.map((line) => JSON.stringify(line)).filter((line) => line.includes(SECRET))).toEqual([]);
    }
  });

  it('logs a thrown value that is not an error by its type only', async () => {
    const { status, logs } = await writeThrough({ secret_access_key: SECRET });
    expect(status).toBe(500);
    expect(logs.find((line) => line.msg === 'unhandled error').err).toEqual({ type: 'object' });
    expect(logs.map((line) => JSON.stringify(line)).filter((line) => line.includes(SECRET))).toEqual([]);
  });
});
