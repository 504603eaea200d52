import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { AppConfig } from '../config/app-config';

/**
 * Paths pino removes from every log line. Secrets must never reach the logs; request headers
 * are not logged at all, these paths are a second line of defence.
 */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'key',
  'secret',
  'password',
  '*.secret_access_key',
  '*.*.secret_access_key',
  'credentials.secret_access_key',
];

/** The one structured JSON logger of a process; Fastify and Nest both write through it. */
export function createLogger(config: Pick<AppConfig, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'atelier' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/** Adapts pino to Nest's LoggerService so framework messages are structured too. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  private write(level: 'info' | 'warn' | 'error' | 'debug' | 'trace', message: unknown, params: unknown[]): void {
    const context = typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    const stack = level === 'error' && typeof params[0] === 'string' ? params[0] : undefined;
    const text = message instanceof Error ? message.message : typeof message === 'string' ? message : undefined;
    const fields = { context, ...(stack ? { stack } : {}), ...(text === undefined ? { message } : {}) };
    this.logger[level](fields, text);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
}
