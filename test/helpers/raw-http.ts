import net from 'node:net';

/** The first response read off a raw connection. */
export interface RawResponse {
  status: number;
  /** Header names in lower case; a repeated header keeps its last value. */
  headers: Record<string, string>;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: any;
  text: string;
  /** Milliseconds from the first byte sent to the connection's close. */
  elapsedMs: number;
}

export interface RawRequestOptions {
  /** Gives up (rejects) when the server has not closed the connection by then; default 10 s. */
  timeoutMs?: number;
  /** Half-closes the connection after the bytes are written (default false: the server must act on its own). */
  end?: boolean;
  /** More bytes written after the first ones, a chunk every `everyMs` (a slow but moving body). */
  more?: { chunks: Array<string | Buffer>; everyMs: number };
}

/** Splits `HTTP/1.1 408 Request Timeout\r\nheader: v\r\n\r\nbody` into its parts. */
function parseResponse(raw: string, elapsedMs: number): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`no complete response head in ${JSON.stringify(raw.slice(0, 200))}`);
  const [statusLine, ...lines] = raw.slice(0, split).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
  const text = raw.slice(split + 4, length === undefined ? undefined : split + 4 + length);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status, headers, body, text, elapsedMs };
}

/**
 * Writes `bytes` as they are to `baseUrl`'s host and port (loopback only) and reads until the server closes the
 * connection: for requests that no HTTP client would send (malformed, contradictory or unfinished ones).
 */
export function rawRequest(
  baseUrl: string,
  bytes: string | Buffer,
  options: RawRequestOptions = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  if (!/^127\.|^\[?::1\]?$|^localhost$/.test(hostname))
    throw new Error(`raw requests go to loopback only: ${hostname}`);
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const started = Date.now();
    const socket = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) }, () => {
      socket.write(bytes);
      const more = [...(options.more?.chunks ?? [])];
      const next = () => {
        const chunk = more.shift();
        if (chunk === undefined || socket.destroyed) {
          if (options.end) socket.end();
          return;
        }
        socket.write(chunk);
        setTimeout(next, options.more?.everyMs ?? 0);
      };
      if (more.length > 0) setTimeout(next, options.more?.everyMs ?? 0);
      else if (options.end) socket.end();
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${timeoutMs} ms without closing it`));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    // A reset after the response (the server closing with unread input) still leaves what was read.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString('latin1');
      try {
        resolve(parseResponse(raw, Date.now() - started));
      } catch (error) {
        reject(error as Error);
      }
    });
  });
}

/** A request head with CRLF line ends: `head('POST /v1/keys', {host: 'x'})`. */
export function head(requestLine: string, headers: Record<string, string | number>): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `${requestLine} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}
