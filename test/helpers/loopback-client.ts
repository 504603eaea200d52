import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/** An answer as a client sees it. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, else the text. */
  body: any;
}

/** A request from one chosen client address. */
export interface Sent {
  /** Local address of the client socket: every 127.0.0.0/8 address is another client on loopback. */
  from: string;
  method?: string;
  path: string;
  key?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** One request from a chosen loopback address (fetch cannot bind its socket). */
export function sendFrom(baseUrl: string, sent: Sent): Promise<Answer> {
  const headers: Record<string, string> = { ...sent.headers };
  if (sent.key !== undefined) headers.authorization = `Bearer ${sent.key}`;
  if (sent.body !== undefined) headers['content-type'] ??= 'application/json';
  return new Promise((done, fail) => {
    const request = httpRequest(
      new URL(sent.path, baseUrl),
      { method: sent.method ?? 'GET', headers, localAddress: sent.from },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
          done({ status: response.statusCode ?? 0, headers: response.headers, body });
        });
      },
    );
    request.on('error', fail);
    request.end(sent.body);
  });
}
