import { Logger } from '@nestjs/common';
import { type GenerativeConfig, ServiceException } from '@app/common';

/** Longest wait a generator's Retry-After may impose before the next attempt. */
export const RETRY_AFTER_CAP_MS = 30_000;
/** First backoff between attempts; it doubles each time, up to {@link BACKOFF_CAP_MS}. */
const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 4_000;
/** How much of a generator's own words (an error body, a node's exception) goes into the server log; none to clients. */
const LOGGED_LIMIT = 200;
/** Statuses that say "not now" rather than "not this": worth another attempt. */
const PASSING_STATUSES = new Set([429, 502, 503, 504]);
/** Network errors after which the request may pass on a new connection. */
const PASSING_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ECONNABORTED']);
/** Node's fetch (undici) stops waiting for headers or body after 300 s: a timeout of its own, not ours. */
const CLIENT_TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export interface GeneratorClientOptions {
  /** How the generator is named in errors: `ComfyUI`, `Automatic1111`, `OpenAI-compatible API`. */
  kind: string;
  config: GenerativeConfig;
  /** Headers sent with every request to the generator (its authentication). */
  headers?: Record<string, string>;
  /** The generator's own message in an error answer (its JSON error shape), or undefined to show the raw text. */
  errorMessage(status: number, body: unknown): string | undefined;
  /** An answer worth another attempt although its status says it may pass (e.g. OpenAI's insufficient_quota). */
  isFinal?(status: number, body: unknown): boolean;
  /** Where the generator's own words go (redacted, shortened): the server log by default, never the client. */
  log?(line: string): void;
}

export interface GeneratorRequest {
  method: 'GET' | 'POST';
  /**
   * Path and query under the base URL (`/prompt`), or an absolute URL the generator gave: only on the generator's
   * own origin (its scheme, host and port), else refused before any connection.
   */
  path: string;
  json?: unknown;
  form?: FormData;
  /**
   * Whether sending it twice is harmless (default: GET yes, POST no). A request that is not idempotent is retried
   * only where the generator cannot have acted on it: a refused connection, 429, 503.
   */
  idempotent?: boolean;
  /** Answers with these statuses come back to the caller instead of failing (e.g. ComfyUI's 400 node errors). */
  accept?: number[];
}

export interface GeneratorAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
  /** The body as a JSON object or array; anything else (HTML, text, `null`) is a 502 naming the generator. */
  json<T extends object>(): T;
}

/** The base URL without its user name and password (fetch refuses them), and those as a Basic header. */
function splitCredentials(url: string): { base: URL; basic?: string } {
  const base = new URL(url);
  let basic: string | undefined;
  if (base.username !== '' || base.password !== '') {
    const user = `${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}`;
    basic = `Basic ${Buffer.from(user).toString('base64')}`;
    base.username = '';
    base.password = '';
  }
  return { base, basic };
}

/**
 * The one HTTP client of the generator adapters: a time limit per job (config.timeoutMs together with the job's
 * signal), bounded retries with backoff for what may pass (a refused or reset connection, 429, 502/503/504,
 * honouring Retry-After up to {@link RETRY_AFTER_CAP_MS}), and errors that name the generator and what it answered
 * without its key: GENERATOR_FAILED (502) or GENERATOR_TIMEOUT (504). The job's own abort rejects with its reason.
 */
export class GeneratorClient {
  /** `ComfyUI at 127.0.0.1:8188`: the generator's kind and host, never its credentials. */
  readonly label: string;
  private readonly base: URL;
  /** The base URL's origin and path, no trailing slash: request paths are appended to it. */
  private readonly prefix: string;
  private readonly headers: Record<string, string>;
  private readonly secrets: string[];
  private readonly log: (line: string) => void;

  constructor(private readonly options: GeneratorClientOptions) {
    const { url, apiKey } = options.config;
    if (url === undefined) throw new Error(`${options.kind}: GENERATIVE_URL is required`);
    const { base, basic } = splitCredentials(url);
    this.base = base;
    this.prefix = `${base.origin}${base.pathname.replace(/\/+$/, '')}`;
    this.label = `${options.kind} at ${base.host}`;
    this.headers = { ...(basic ? { authorization: basic } : {}), ...options.headers };
    const parsed = new URL(url);
    this.secrets = [apiKey, parsed.password, parsed.username && `${parsed.username}:${parsed.password}`]
      .concat(Object.values(this.headers))
      .concat(Object.values(this.headers).map((value) => value.replace(/^\S+\s+/, '')))
      .filter((secret): secret is string => typeof secret === 'string' && secret.length >= 3)
      .sort((a, b) => b.length - a.length);
    const logger = new Logger(`${options.kind} client`);
    this.log = options.log ?? ((line) => logger.warn(line));
  }

  /** A job's calls: they share one deadline (config.timeoutMs from now) and the job's signal. */
  session(signal: AbortSignal): GeneratorSession {
    return new GeneratorSession(this, signal, this.options.config.timeoutMs);
  }

  /**
   * A generator failure (502) naming the generator; `retryable` false for answers that will not change. `said`: the
   * generator's own words about it (an error body, a node's exception, its model list), for the server log only,
   * redacted and shortened: a generator's text never reaches a client.
   */
  failure(message: string, retryable = true, said?: string): ServiceException {
    const text = this.redact(`${this.label} ${message}`);
    const short = said === undefined ? '' : this.shortForm(said);
    if (short) this.log(`${text}; it said: ${short}`);
    return new ServiceException('GENERATOR_FAILED', text, {}, {}, { retryable });
  }

  /** An error answer as a failure: its status for the client, the generator's own message for the log. */
  refusal(status: number, body: Buffer, what: string, retryable: boolean): ServiceException {
    return this.failure(`answered ${status} (${what})`, retryable, this.said(status, body));
  }

  /** The generator's own message in an error answer (its JSON error shape, or the raw text). */
  private said(status: number, body: Buffer): string {
    const text = body.subarray(0, 64 * 1024).toString('utf8');
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // A plain-text answer (aiohttp's 500, a proxy's HTML) is logged as it is.
    }
    return this.options.errorMessage(status, parsed) ?? text;
  }

  /** Upstream text for a log line: one line of printable characters, {@link LOGGED_LIMIT} at most, no credential. */
  private shortForm(text: string): string {
    const line = this.redact(text)
      .replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ')
      .trim();
    return line.length > LOGGED_LIMIT ? `${line.slice(0, LOGGED_LIMIT - 3)}...` : line;
  }

  /** The URL of a request: under the base URL, or an absolute one on the generator's own origin (else a failure). */
  urlOf(path: string): URL {
    let url: URL | undefined;
    try {
      url = /^https?:\/\//i.test(path) ? new URL(path) : new URL(this.prefix + path);
    } catch {
      url = undefined;
    }
    if (url?.origin !== this.base.origin) {
      // the host is the generator's text: in the log only
      throw this.failure('answered with a URL outside its own origin: not fetched', false, url?.host ?? path);
    }
    return url;
  }

  redact(text: string): string {
    return this.secrets.reduce((result, secret) => result.split(secret).join('[redacted]'), text);
  }

  /**
   * @internal One attempt: the answer, or the network error thrown by fetch. The body is read as it arrives and
   * given up (the connection closed) past GENERATIVE_MAX_RESPONSE_BYTES: a failure, not retried.
   */
  async send(request: GeneratorRequest, url: URL, signal: AbortSignal): Promise<GeneratorAnswer> {
    const headers: Record<string, string> = { ...this.headers };
    let body: string | FormData | undefined;
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    } else if (request.form !== undefined) {
      body = request.form;
    }
    const response = await fetch(url, { method: request.method, headers, body, signal, redirect: 'error' });
    const bytes = await this.readCapped(response, request);
    return {
      status: response.status,
      headers: response.headers,
      body: bytes,
      json: <T extends object>() => this.parseJson<T>(bytes, response.status, request),
    };
  }

  private parseJson<T extends object>(body: Buffer, status: number, request: GeneratorRequest): T {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (typeof parsed === 'object' && parsed !== null) return parsed as T;
    const what = requestName(request);
    throw this.failure(`answered ${status} without a JSON object (${what})`, false, body.toString('utf8'));
  }

  private async readCapped(response: Response, request: GeneratorRequest): Promise<Buffer> {
    const limit = this.options.config.maxResponseBytes;
    const tooLarge = () =>
      this.failure(
        `answered more than ${limit} bytes (GENERATIVE_MAX_RESPONSE_BYTES) to ${requestName(request)}`,
        false,
      );
    const declared = Number(response.headers.get('content-length'));
    if (declared > limit) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    if (!response.body) return Buffer.alloc(0);
    const chunks: Uint8Array[] = [];
    let length = 0;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.byteLength;
      if (length > limit) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks, length);
  }

  /** @internal */
  get retries(): number {
    return this.options.config.retries;
  }

  /** @internal */
  isFinal(status: number, body: Buffer): boolean {
    if (!this.options.isFinal) return false;
    try {
      return this.options.isFinal(status, JSON.parse(body.toString('utf8')));
    } catch {
      return false;
    }
  }
}

/**
 * A request as errors name it: `POST /prompt`, without the query (it may carry file names or ids); a URL the
 * generator gave is not repeated (its text is the generator's).
 */
function requestName(request: GeneratorRequest): string {
  if (/^https?:\/\//i.test(request.path)) return `${request.method} of the URL it answered`;
  return `${request.method} ${request.path.split('?')[0]}`;
}

/** The network error's code (`ECONNREFUSED`), from fetch's TypeError or its cause. */
function networkCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: string } })?.cause;
  return cause?.code ?? (error as { code?: string })?.code;
}

/** Retry-After in milliseconds (seconds or an HTTP date), or undefined when absent or unreadable. */
function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after-ms') ?? headers.get('retry-after');
  if (value === null) return undefined;
  if (headers.has('retry-after-ms')) return Number(value) >= 0 ? Number(value) : undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** One job's conversation with a generator: every request of it under one deadline. */
export class GeneratorSession {
  readonly signal: AbortSignal;
  private readonly deadline: AbortSignal;
  private readonly endsAt: number;

  constructor(
    private readonly client: GeneratorClient,
    private readonly job: AbortSignal,
    private readonly timeoutMs: number,
  ) {
    this.deadline = AbortSignal.timeout(timeoutMs);
    this.signal = AbortSignal.any([job, this.deadline]);
    this.endsAt = Date.now() + timeoutMs;
  }

  /** The answer of a 2xx (or an accepted status); else a ServiceException after the retries that may help. */
  async request(request: GeneratorRequest): Promise<GeneratorAnswer> {
    const idempotent = request.idempotent ?? request.method === 'GET';
    const url = this.client.urlOf(request.path);
    const what = requestName(request);
    for (let attempt = 0; ; attempt += 1) {
      this.stopIfAborted();
      const last = attempt >= this.client.retries;
      let answer: GeneratorAnswer;
      try {
        answer = await this.client.send(request, url, this.signal);
      } catch (error) {
        this.stopIfAborted();
        if (error instanceof ServiceException) throw error;
        const code = networkCode(error) ?? 'network error';
        if (CLIENT_TIMEOUTS.has(code)) {
          // Node's fetch gives up on a silent response after 300 s, whatever the job's own limit.
          throw new ServiceException('GENERATOR_TIMEOUT', `${this.client.label} sent no answer within 300 s (${what})`);
        }
        const passing = idempotent ? PASSING_ERRORS.has(code) : code === 'ECONNREFUSED';
        if (last || !passing) throw this.client.failure(`could not be reached (${what}: ${code})`);
        await this.sleep(this.backoff(attempt));
        continue;
      }
      if ((answer.status >= 200 && answer.status < 300) || request.accept?.includes(answer.status)) return answer;
      const passing =
        (idempotent ? PASSING_STATUSES.has(answer.status) : answer.status === 429 || answer.status === 503) &&
        !this.client.isFinal(answer.status, answer.body);
      const failure = this.client.refusal(answer.status, answer.body, what, passing);
      if (last || !passing) throw failure;
      const wait = Math.min(retryAfterMs(answer.headers) ?? this.backoff(attempt), RETRY_AFTER_CAP_MS);
      if (Date.now() + wait >= this.endsAt) throw failure;
      await this.sleep(wait);
    }
  }

  /** Waits, or rejects as soon as the job is aborted or its time is up. */
  async sleep(ms: number): Promise<void> {
    this.stopIfAborted();
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.signal.addEventListener('abort', done, { once: true });
    });
    this.stopIfAborted();
  }

  /** Throws the job's abort reason, or GENERATOR_TIMEOUT when this session's time is up. */
  stopIfAborted(): void {
    if (this.job.aborted) throw this.job.reason;
    if (this.deadline.aborted) {
      throw new ServiceException(
        'GENERATOR_TIMEOUT',
        `${this.client.label} did not finish within ${this.timeoutMs} ms`,
      );
    }
  }

  private backoff(attempt: number): number {
    const full = Math.min(BACKOFF_BASE_MS * 2 ** attempt, BACKOFF_CAP_MS);
    return full * (1 - Math.random() * 0.25);
  }
}
