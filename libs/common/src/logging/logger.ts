import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { AppConfig, type LogFormat } from '../config/app-config';
import { PrettyLogStream } from './pretty-log';

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

/** Whether standard output is a terminal a person reads, rather than a pipe, a file, journald or docker's logs. */
export function stdoutIsTerminal(): boolean {
  return process.stdout.isTTY === true;
}

/**
 * Where standard output's log lines go: pino's own asynchronous JSON writer (undefined) for a pipe or a file;
 * readable lines (coloured on a terminal) when LOG_FORMAT is `pretty`, or `auto` on a terminal. On a terminal
 * lines are written at once, so that they keep their order with what the process writes there itself (the
 * first admin key).
 */
function standardOutput(format: LogFormat): pino.DestinationStream | undefined {
  const terminal = stdoutIsTerminal();
  const pretty = format === 'pretty' || (format === 'auto' && terminal);
  if (!pretty && !terminal) return undefined;
  const out = pino.destination({ dest: 1, sync: true });
  return pretty ? new PrettyLogStream(out, terminal) : out;
}

/**
 * The one structured logger of a process; Fastify and Nest both write through it. On standard output as
 * LOG_FORMAT says; a given destination (tests) always receives JSON lines.
 */
export function createLogger(
  config: Pick<AppConfig, 'logLevel'> & Partial<Pick<AppConfig, 'logFormat'>>,
  destination?: pino.DestinationStream,
): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'atelier' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? standardOutput(config.logFormat ?? 'auto'),
  );
}

/**
 * A logger for the few lines an operator needs whatever LOG_LEVEL says (that the service listens, and where):
 * they are written at `info` even when the level is `error` or `silent`.
 */
export function alwaysShown(logger: Logger, context: string): Logger {
  const level = logger.isLevelEnabled('info') ? logger.level : 'info';
  return logger.child({ context }, { level });
}

/**
 * Nest's narration of its own start (`InstanceLoader`: a line per module, `RouterExplorer`: a line per route,
 * about 60 lines) is for debugging the framework; at `info` it buried the lines an operator needs.
 */
const FRAMEWORK_START_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

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
    const context = params[params.length - 1];
    this.write(
      typeof context === 'string' && FRAMEWORK_START_CONTEXTS.has(context) ? 'debug' : 'info',
      message,
      params,
    );
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
