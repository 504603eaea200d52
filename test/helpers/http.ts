export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON body (undefined when not JSON). */
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Sent as it is, for malformed bodies. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

/** One HTTP request to the service over real TCP, as a client would make it. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | Buffer | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  } else if (body !== undefined) {
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** A client bound to one base URL and, optionally, one key. */
export function client(baseUrl: string, key?: string) {
  const send = (method: string, path: string, options: RequestOptions = {}) =>
    call(baseUrl, method, path, { key, ...options });
  return {
    get: (path: string, options?: RequestOptions) => send('GET', path, options),
    post: (path: string, body?: unknown, options?: RequestOptions) => send('POST', path, { body, ...options }),
    patch: (path: string, body?: unknown, options?: RequestOptions) => send('PATCH', path, { body, ...options }),
    delete: (path: string, options?: RequestOptions) => send('DELETE', path, options),
    send,
  };
}
