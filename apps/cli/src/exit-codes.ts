/** The exit codes scripts can rely on (documented in `atelier --help` and docs/cli.md). */
export const EXIT = {
  OK: 0,
  /** Bad flags or arguments, a missing service URL or key, an unreadable local file. */
  USAGE: 2,
  /** The API refused the request as invalid: 400, 404, 409, 413, 415, 422. */
  INVALID: 3,
  /** The key is missing, wrong, lacks the scope, is out of quota or rate-limited: 401, 402, 403, 429. */
  AUTH: 4,
  /** A task ended in ERROR, or some of its items failed. */
  TASK_FAILED: 5,
  /** The service could not be reached, timed out, or answered 5xx. */
  UNAVAILABLE: 6,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI reports in words and ends with `code`. */
export class CliError extends Error {
  constructor(
    readonly code: ExitCode,
    message: string,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(EXIT.USAGE, message);

/** The exit code of an HTTP error status. */
export function exitCodeOfStatus(status: number): ExitCode {
  if ([401, 402, 403, 429].includes(status)) return EXIT.AUTH;
  if (status >= 500) return EXIT.UNAVAILABLE;
  return EXIT.INVALID;
}
