import { ErrorCodeName, ErrorCodes, ErrorDefinition } from './error-codes';

/** Field path (dotted, e.g. `parameters.credentials.access_key`) to its messages. */
export type ErrorDetails = Record<string, unknown>;

export interface ServiceExceptionOptions {
  /**
   * Overrides the catalogue's `retryable` where one code covers failures of both kinds, e.g. FETCH_FAILED for an
   * origin's answer, whose HTTP status says whether asking again may help.
   */
  retryable?: boolean;
}

/** "access_key should not be empty" at `parameters.credentials.access_key` names the whole path. */
function withPath(path: string, message: string): string {
  const last = path.split('.').pop() ?? path;
  if (message.startsWith(`${path} `)) return message;
  if (message.startsWith(`${last} `)) return `${path}${message.slice(last.length)}`;
  return `${path}: ${message}`;
}

/**
 * The one exception family of the service. Throw it with a catalogue name; the global filter
 * turns it into the Error object with the catalogue's status, code and type.
 */
export class ServiceException extends Error {
  readonly definition: ErrorDefinition;
  /**
   * Whether the same work may succeed when run again (a network failure, a store's 5xx, a full queue), as opposed to
   * failing the same way every time (a bad image, an origin's 404). Retries read this, never the message.
   */
  readonly retryable: boolean;

  constructor(
    readonly codeName: ErrorCodeName,
    message?: string,
    readonly details: ErrorDetails = {},
    /** Extra response headers, e.g. `Allow` or `Retry-After`. */
    readonly headers: Record<string, string> = {},
    options: ServiceExceptionOptions = {},
  ) {
    super(message ?? ErrorCodes[codeName].message);
    this.name = 'ServiceException';
    this.definition = ErrorCodes[codeName];
    this.retryable = options.retryable ?? this.definition.retryable ?? false;
  }

  get status(): number {
    return this.definition.status;
  }

  /** A 422 validation error whose details map field paths to messages. */
  static validation(details: Record<string, string[]>, message?: string): ServiceException {
    const text =
      message ??
      Object.entries(details)
        .flatMap(([path, messages]) => messages.map((m) => withPath(path, m)))
        .map((m) => m.replace(/\.?$/, '.'))
        .join(' ');
    return new ServiceException('VALIDATION', text || ErrorCodes.VALIDATION.message, details);
  }
}
