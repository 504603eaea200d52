/**
 * What a log line may say about an unexpected error. Its message and members are left out: libraries quote the
 * values they were given (class-transformer's TypeErrors, database drivers' "Key (name)=(...)" and query
 * parameters), and those values can be a caller's secret.
 */
export interface LoggedError {
  /** The error's class (`TypeError`, `QueryFailedError`), or `typeof` of a thrown value that is not an error. */
  type: string;
  /** A machine code such as `ECONNREFUSED`, `SQLITE_ERROR` or `42P01`, when the error has a plain one. */
  code?: string;
  /** The stack with the class name in place of the message line. */
  stack?: string;
}

const PLAIN_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;
/** A V8 stack frame: `    at fn (file:line:column)`, `    at file:line:column`, `    at new X (<anonymous>)`. */
const FRAME = /^ {4}at [^\n]+$/;

/** The frames of `error.stack`, without the message, however many lines the message has. */
function framesOf(error: Error, type: string): string | undefined {
  if (typeof error.stack !== 'string') return undefined;
  const header = error.message ? `${error.name}: ${error.message}` : error.name;
  // The message may span lines that look like frames: cut it off by its exact text when the stack still starts
  // with it; otherwise (a message changed after the stack was taken) keep no line before the first frame.
  const rest = error.stack.startsWith(header)
    ? error.stack.slice(header.length).split('\n').slice(1)
    : error.stack.split('\n').slice(1);
  const firstFrame = rest.findIndex((line) => FRAME.test(line));
  const frames = firstFrame < 0 ? [] : rest.slice(firstFrame).filter((line) => FRAME.test(line));
  return [type, ...frames].join('\n');
}

/** Describes a thrown value for the log without quoting anything it carries. */
export function loggedError(thrown: unknown): LoggedError {
  if (!(thrown instanceof Error)) return { type: thrown === null ? 'null' : typeof thrown };
  const type = thrown.constructor?.name || thrown.name || 'Error';
  const { code } = thrown as { code?: unknown };
  const plainCode =
    (typeof code === 'string' && PLAIN_CODE.test(code)) || typeof code === 'number' ? String(code) : undefined;
  const stack = framesOf(thrown, type);
  return { type, ...(plainCode ? { code: plainCode } : {}), ...(stack ? { stack } : {}) };
}
