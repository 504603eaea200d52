import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { pipeline } from 'node:stream';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, MEDIA_TYPES, ServiceException, SNIFF_BYTES, sniffMediaType } from '@app/common';
import { SampleImages } from '../samples/sample-images';
import { AddressPolicy, bareHost, type ResolvedAddress } from './address-policy';
import { describeUrl } from './describe-url';
import { BodyGuard, cutShort, Deadline, readWhole, toFetchError, tooLarge } from './fetch-stream';
import { unsuccessfulAnswer } from './http-answer';
import type { SafeDownload, SafeFetchOptions, SafeFetchResponse, StreamedBody } from './safe-fetcher.types';

/** Redirects followed per download; one more fails with FETCH_REFUSED. */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'Atelier/0.1';
/**
 * Idle connections are kept this long for the next request to the same host and port (a client sending many
 * images from one origin, a batch): connecting costs more CPU than a small download's own work.
 */
const KEEP_IDLE_MS = 4_000;
const MAX_IDLE_SOCKETS = 32;
/** Request headers that must not follow a redirect to another origin (as in the Fetch standard). */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** A `lookup` that answers the already checked address, so that the connection cannot be re-resolved elsewhere. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [target]);
    else callback(null, target.address, target.family);
  };
}

function parseUrl(url: string, base?: URL): URL {
  try {
    return new URL(url, base);
  } catch {
    if (base) {
      // The origin's own answer: it redirects to the same invalid URL every time.
      const message = `${describeUrl(base)} redirected to an invalid URL.`;
      throw new ServiceException('FETCH_FAILED', message, {}, {}, { retryable: false });
    }
    throw new ServiceException('FETCH_REFUSED', 'The URL is not a valid absolute URL.');
  }
}

function declaredSize(headers: IncomingHttpHeaders): number | undefined {
  const value = headers['content-length'];
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** The Content-Type header's media type without parameters, lower-cased; undefined when absent or empty. */
function headerMediaType(headers: IncomingHttpHeaders): string | undefined {
  const type = headers['content-type']?.split(';')[0].trim().toLowerCase();
  return type || undefined;
}

/** The type sniffed from a body's first bytes when recognised, else the Content-Type header's media type. */
function contentTypeOf(head: Buffer, headers: IncomingHttpHeaders): string | undefined {
  const sniffed = sniffMediaType(head);
  return sniffed ? MEDIA_TYPES[sniffed].mime : headerMediaType(headers);
}

function withoutBodyHeaders(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !['content-type', 'content-length'].includes(name.toLowerCase())),
  );
}

function withoutCredentials(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADERS.has(name.toLowerCase())));
}

/**
 * Downloads user-given URLs without letting them reach the service's own network: every hop (redirects included)
 * is checked by {@link AddressPolicy} and connects to exactly the address that was checked. Time limits
 * (FETCH_CONNECT_TIMEOUT_MS, FETCH_TIMEOUT_MS) and the size cap (FETCH_MAX_BYTES) apply to every download.
 * Fails only with ServiceException FETCH_REFUSED, FETCH_FAILED or FETCH_TOO_LARGE. The service's own sample images
 * (`PUBLIC_BASE_URL/samples/<name>`) are the one exception to going out: {@link SampleImages} answers them from disk.
 *
 * Connections are re-used (keep-alive) by host and port. A kept socket was connected to an address the policy
 * checked, and every request checks its own URL's addresses again before it is sent, so re-use never reaches
 * an address that the policy would refuse now.
 */
@Injectable()
export class SafeFetcher implements OnApplicationShutdown {
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, maxFreeSockets: MAX_IDLE_SOCKETS, timeout: KEEP_IDLE_MS }),
    https: new https.Agent({ keepAlive: true, maxFreeSockets: MAX_IDLE_SOCKETS, timeout: KEEP_IDLE_MS }),
  };

  constructor(
    private readonly config: AppConfig,
    private readonly policy: AddressPolicy,
    private readonly samples: SampleImages,
  ) {}

  /** Closed in the last shutdown phase: the work drained before it (beforeApplicationShutdown) still uses it. */
  onApplicationShutdown(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /**
   * Requests `url`, following up to {@link MAX_REDIRECTS} redirects (none with `redirects: false`), and returns the
   * final response whatever its status. The body stream is capped at `options.maxBytes` (bytes) and shares the total time limit; read it to
   * the end or destroy it.
   */
  async open(url: string, options: SafeFetchOptions = {}): Promise<SafeFetchResponse> {
    const start = parseUrl(url);
    const label = describeUrl(start);
    const maxBytes = options.maxBytes ?? this.config.fetchMaxBytes;
    const sample = await this.samples.open(start, options.method ?? 'GET', maxBytes);
    if (sample) return sample;
    const deadline = new Deadline(this.config.fetchTimeoutMs, label, options.signal);
    try {
      const { url: final, response } = await this.follow(start, options, deadline);
      return await this.toResponse(final, response, maxBytes, deadline);
    } catch (error) {
      deadline.dispose();
      throw toFetchError(error, label);
    }
  }

  /**
   * GETs `url` into memory; anything but a 2xx final status fails with FETCH_FAILED, retryable as the status is.
   * The final response is read straight into its buffer, without open()'s BodyGuard stream: every edit by URL
   * downloads here, and the guard's extra stream cost about a millisecond of CPU per photo (docs/benchmarks.md).
   * The limits are the same: the declared size and the running total against the cap (readWhole), the total time
   * limit, the caller's signal.
   */
  async download(url: string, options: SafeFetchOptions = {}): Promise<SafeDownload> {
    const start = parseUrl(url);
    const maxBytes = options.maxBytes ?? this.config.fetchMaxBytes;
    const sample = await this.samples.open(start, 'GET', maxBytes);
    if (sample) return this.keep(sample, maxBytes, options);
    let label = describeUrl(start);
    const deadline = new Deadline(this.config.fetchTimeoutMs, label, options.signal);
    let response: IncomingMessage | undefined;
    try {
      const followed = await this.follow(start, { ...options, method: 'GET' }, deadline);
      const final = followed.url;
      response = followed.response;
      label = describeUrl(final);
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        response.destroy();
        throw unsuccessfulAnswer('The URL', status);
      }
      const body = response;
      deadline.onAbort((reason) => body.destroy(reason));
      const buffer = await readWhole(body, maxBytes, label, declaredSize(response.headers), options.reserve);
      return { url: final.href, buffer, contentType: contentTypeOf(buffer.subarray(0, SNIFF_BYTES), response.headers) };
    } catch (error) {
      throw toFetchError(response ? cutShort(error, response.complete) : error, label);
    } finally {
      deadline.dispose();
    }
  }

  /** A sample image's answer, read as download() reads any other. */
  private async keep(response: SafeFetchResponse, maxBytes: number, options: SafeFetchOptions): Promise<SafeDownload> {
    if (response.status < 200 || response.status > 299) throw unsuccessfulAnswer('The URL', response.status);
    const label = describeUrl(new URL(response.url));
    const buffer = await readWhole(response.body, maxBytes, label, response.size, options.reserve);
    return { url: response.url, buffer, contentType: response.contentType };
  }

  private async follow(
    start: URL,
    options: SafeFetchOptions,
    deadline: Deadline,
  ): Promise<{ url: URL; response: IncomingMessage }> {
    let url = start;
    let method = options.method ?? 'GET';
    let body = options.body;
    let headers: OutgoingHttpHeaders = { 'user-agent': USER_AGENT, ...options.headers };
    for (let redirects = 0; redirects <= MAX_REDIRECTS; redirects++) {
      const response = await this.request(url, method, headers, deadline, body);
      const location = response.headers.location;
      const redirect = REDIRECT_STATUSES.has(response.statusCode ?? 0);
      if (!redirect || location === undefined || options.redirects === false) return { url, response };
      response.destroy();
      const next = parseUrl(location, url);
      // The Fetch standard turns a POST into GET on 301, 302 and 303; HEAD must not start a download.
      const status = response.statusCode ?? 0;
      if ((status === 303 && method !== 'HEAD') || (method === 'POST' && (status === 301 || status === 302))) {
        method = 'GET';
        body = undefined;
        headers = withoutBodyHeaders(headers);
      }
      if (next.origin !== url.origin) headers = withoutCredentials(headers);
      url = next;
    }
    throw new ServiceException(
      'FETCH_REFUSED',
      `${describeUrl(start)} redirected more than ${MAX_REDIRECTS} times; downloads follow at most ${MAX_REDIRECTS} redirects.`,
    );
  }

  /** One hop: checks the URL and its addresses, then connects to the checked address only. */
  private async request(
    url: URL,
    method: string,
    headers: OutgoingHttpHeaders,
    deadline: Deadline,
    body?: Buffer | StreamedBody,
  ): Promise<IncomingMessage> {
    const target = await deadline.race(this.policy.resolve(url));
    const host = bareHost(url);
    const secure = url.protocol === 'https:';
    const connectMs = this.config.fetchConnectTimeoutMs;
    return new Promise<IncomingMessage>((resolve, reject) => {
      const request = (secure ? https : http).request({
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method,
        headers: body ? { ...headers, 'content-length': body.length } : headers,
        agent: secure ? this.agents.https : this.agents.http,
        lookup: pinnedLookup(target),
        // The certificate is checked against the host name, not the pinned address.
        ...(secure && isIP(host) === 0 ? { servername: host } : {}),
      });
      const connectTimer = setTimeout(() => {
        // A connection failure like any other: the client is not told that the address was silent.
        const timeout = Object.assign(new Error(`connect timed out after ${connectMs} ms`), { code: 'ETIMEDOUT' });
        request.destroy(timeout);
      }, connectMs);
      const settle = () => {
        clearTimeout(connectTimer);
        unsubscribe();
      };
      const unsubscribe = deadline.onAbort((reason) => request.destroy(reason));
      request.once('socket', (socket) => {
        if (!socket.connecting) clearTimeout(connectTimer);
        else socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      });
      request.once('response', (response) => {
        settle();
        resolve(response);
      });
      // `on`, not `once`: a socket may fail more than once, and an unheard 'error' would crash the process.
      request.on('error', (error) => {
        settle();
        reject(toFetchError(error, describeUrl(url)));
      });
      if (body === undefined || Buffer.isBuffer(body)) request.end(body);
      // a failing body stream destroys the request, which rejects through 'error' above
      else pipeline(body.open(), request, () => undefined);
    });
  }

  private async toResponse(
    url: URL,
    response: IncomingMessage,
    maxBytes: number,
    deadline: Deadline,
  ): Promise<SafeFetchResponse> {
    const label = describeUrl(url);
    const size = declaredSize(response.headers);
    if (size !== undefined && size > maxBytes) {
      response.destroy();
      throw tooLarge(label, maxBytes, size);
    }
    const body = new BodyGuard(maxBytes, label, () => response.complete);
    // Errors surface on `body`; pipeline closes the connection when the body fails or is destroyed.
    pipeline(response, body, () => undefined);
    body.once('close', () => deadline.dispose());
    deadline.onAbort((reason) => body.destroy(reason));
    const head = await body.head;
    return {
      url: url.href,
      status: response.statusCode ?? 0,
      headers: response.headers,
      contentType: contentTypeOf(head, response.headers),
      size,
      body,
    };
  }
}
