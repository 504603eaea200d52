import { CliError, EXIT, exitCodeOfStatus } from './exit-codes';

/** The service's Error body (docs/errors.md); a 429 wraps it in `detail`. */
interface ErrorBody {
  error_code?: string;
  error_message?: string;
  error_details?: Record<string, unknown>;
}

/** What the API answered with an error status, worded for a person; `code` is the CLI's exit code. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    message: string,
  ) {
    super(exitCodeOfStatus(status), message);
  }
}

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as multipart/form-data instead of `body`. */
  form?: FormData;
}

/** The error message, then one line per field of `error_details` (`field: reason`), as the API gave them. */
export function describeApiError(status: number, raw: unknown): string {
  const body = errorBodyOf(raw);
  const lines = [`${body.error_message ?? `The service answered HTTP ${status}.`}`];
  for (const [field, reasons] of Object.entries(body.error_details ?? {})) {
    const list = Array.isArray(reasons) ? reasons : [reasons];
    lines.push(`  ${field}: ${list.map((reason) => String(reason)).join('; ')}`);
  }
  const hint = HINTS[status];
  if (hint) lines.push(hint);
  return lines.join('\n');
}

const HINTS: Record<number, string> = {
  401: 'Check the key: --key, ATELIER_KEY or `atelier login`.',
  403: "The key lacks a scope this needs: use a key with it, or widen this key's scopes (`atelier keys update`).",
  402: 'This key has used its quota: raise it (`atelier keys update ID --quota N`) or use another key.',
  429: 'Too many requests: wait a moment and try again.',
};

function errorBodyOf(raw: unknown): ErrorBody {
  if (raw === null || typeof raw !== 'object') return {};
  const detail = (raw as { detail?: unknown }).detail;
  return (detail && typeof detail === 'object' ? detail : raw) as ErrorBody;
}

/** A client of the public HTTP API: `Authorization: Bearer <key>` on every call, answers unwrapped from `data`. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly key: string,
    private readonly timeoutMs = 120_000,
  ) {}

  /** The URL of an API path on this service. */
  url(path: string, query: RequestOptions['query'] = {}): string {
    const url = new URL(path, `${this.baseUrl.replace(/\/+$/, '')}/`);
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  /** Calls the API; resolves with the answer's `data`, rejects with an {@link ApiError} or a {@link CliError}. */
  async request<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}`, accept: 'application/json' };
    let body: string | FormData | undefined;
    if (options.form) body = options.form;
    else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await this.send(this.url(path, options.query), { method, headers, body });
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      if (response.ok) throw new CliError(EXIT.UNAVAILABLE, `The service answered ${path} with something not JSON.`);
    }
    if (!response.ok)
      throw new ApiError(response.status, errorBodyOf(parsed), describeApiError(response.status, parsed));
    return (parsed as { data: T } | undefined)?.data as T;
  }

  /** GETs a URL without the key (a result's `tmp_url` is public, and may be on another host) and returns its bytes. */
  async download(url: string): Promise<Buffer> {
    const response = await this.send(url, {});
    if (!response.ok) {
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      throw new ApiError(
        response.status,
        errorBodyOf(parsed),
        `Downloading ${url}: ${describeApiError(response.status, parsed)}`,
      );
    }
    return Buffer.from(await response.arrayBuffer());
  }

  private async send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : '';
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      throw new CliError(
        EXIT.UNAVAILABLE,
        timedOut
          ? `The service at ${new URL(url).origin} did not answer within ${this.timeoutMs / 1000} s.`
          : `Cannot reach the service at ${new URL(url).origin} (${cause}). Is it running, and is the URL right?`,
      );
    }
  }
}
