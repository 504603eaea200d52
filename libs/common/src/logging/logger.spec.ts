import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { LogLevel } from '../config/app-config';
import { alwaysShown, createLogger, NestPinoLogger } from './logger';

function capture(level: LogLevel) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ logLevel: level }, sink), lines };
}

describe('the process logger', () => {
  it('writes the start lines at every level, silent included, and keeps lower levels for the rest', () => {
    for (const level of ['error', 'silent'] as const) {
      const { logger, lines } = capture(level);
      alwaysShown(logger, 'Main').info('Atelier API listening on http://127.0.0.1:3000');
      logger.info('an ordinary line');
      logger.warn('a warning');
      expect(lines).toEqual([
        expect.objectContaining({
          level: 'info',
          context: 'Main',
          msg: 'Atelier API listening on http://127.0.0.1:3000',
        }),
      ]);
    }
    // Below info, the always-shown logger keeps the process's level (it never hides what the level shows).
    const { logger, lines } = capture('debug');
    alwaysShown(logger, 'Main').debug('detail');
    expect(lines).toEqual([expect.objectContaining({ level: 'debug', msg: 'detail' })]);
  });

  it("puts Nest's start-up narration at debug and leaves every other context at info", () => {
    const { logger, lines } = capture('debug');
    const nest = new NestPinoLogger(logger);
    nest.log('Starting Nest application...', 'NestFactory');
    nest.log('ConfigModule dependencies initialized', 'InstanceLoader');
    nest.log('HealthController {/health}:', 'RoutesResolver');
    nest.log('Mapped {/health/live, GET} route', 'RouterExplorer');
    nest.log('Nest application successfully started', 'NestApplication');
    nest.log('Re-encrypted 2 secrets', 'StorageConnections');
    nest.error('listen EADDRINUSE', undefined, 'NestApplication');
    expect(lines.map((line) => [line.level, line.context])).toEqual([
      ['debug', 'NestFactory'],
      ['debug', 'InstanceLoader'],
      ['debug', 'RoutesResolver'],
      ['debug', 'RouterExplorer'],
      ['debug', 'NestApplication'],
      ['info', 'StorageConnections'],
      ['error', 'NestApplication'],
    ]);
  });
});
