import {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  createServer,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/**
 * What the three fake generators share: a real HTTP server on 127.0.0.1 (port 0), every request recorded, and
 * faults a test arms per path (an error answer, a hang, a reset connection) before the fake's own handling.
 */

export interface RecordedRequest {
  method: string;
  /** The path without its query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type Fault =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { hang: true }
  | { reset: true }
  /** 200 with `chunk` sent `times` times, chunked (no length), for as long as the client reads. */
  | { stream: { chunk: Buffer; times: number; type?: string } }
  /** The headers at once, the body after `ms` (a slow generator). */
  | { slow: { ms: number; status: number; body?: unknown } };

export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export abstract class FakeServer {
  readonly requests: RecordedRequest[] = [];
  url = '';
  /** TCP connections accepted so far. */
  connections = 0;
  /** Requests whose connection closed before their answer was written out. */
  abandoned = 0;
  private streamed?: Promise<number>;
  private server?: Server;
  private readonly faults: { method: string; path: string; fault: Fault; times: number }[] = [];

  /** The fake's own answer to a request no fault caught. */
  protected abstract handle(request: RecordedRequest): Promise<Answer>;

  /** Listens on `host` (a loopback address: 127.0.0.1 unless a test needs another origin), port 0. */
  async start(host = '127.0.0.1'): Promise<this> {
    this.server = createServer((req, res) => void this.receive(req, res));
    this.server.on('connection', () => (this.connections += 1));
    await new Promise<void>((resolve) => this.server!.listen(0, host, resolve));
    this.url = `http://${host}:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The bytes the last `stream` fault wrote before its connection closed (or it sent them all). */
  streamEnded(): Promise<number> {
    return this.streamed ?? Promise.resolve(0);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** The next `times` requests to `METHOD /path` (exact path) meet `fault` instead of the fake's answer. */
  fail(route: string, fault: Fault, times = 1): void {
    const [method, path] = route.split(' ');
    this.faults.push({ method, path, fault, times });
  }

  /** The requests to `METHOD /path` (exact path, no query). */
  to(route: string): RecordedRequest[] {
    const [method, path] = route.split(' ');
    return this.requests.filter((request) => request.method === method && request.path === path);
  }

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const request: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    this.requests.push(request);
    const armed = this.faults.find(
      (item) => item.times > 0 && item.method === request.method && item.path === request.path,
    );
    let answer: Answer;
    if (armed) {
      armed.times -= 1;
      if ('hang' in armed.fault) return; // never answers; close() drops the connection
      if ('reset' in armed.fault) {
        req.socket.destroy();
        return;
      }
      if ('stream' in armed.fault) {
        this.streamed = stream(res, armed.fault.stream);
        return;
      }
      if ('slow' in armed.fault) {
        const { ms, ...rest } = armed.fault.slow;
        res.once('close', () => !res.writableFinished && (this.abandoned += 1));
        await new Promise((resolve) => setTimeout(resolve, ms));
        if (res.destroyed) return;
        answer = rest;
      } else answer = armed.fault;
    } else {
      try {
        answer = await this.handle(request);
      } catch (error) {
        answer = { status: 500, body: `500 Internal Server Error\n\n${String(error)}` };
      }
    }
    const headers = { ...answer.headers };
    let body: Buffer | string = '';
    if (Buffer.isBuffer(answer.body)) body = answer.body;
    else if (typeof answer.body === 'string') {
      body = answer.body;
      headers['content-type'] ??= 'text/plain; charset=utf-8';
    } else if (answer.body !== undefined) {
      body = JSON.stringify(answer.body);
      headers['content-type'] ??= 'application/json';
    }
    res.writeHead(answer.status, headers).end(body);
  }
}

/** Writes `chunk` `times` times, waiting for the reader, until done or the connection closes: the bytes written. */
async function stream(res: ServerResponse, { chunk, times, type }: { chunk: Buffer; times: number; type?: string }) {
  res.writeHead(200, { 'content-type': type ?? 'application/json' });
  let written = 0;
  for (let index = 0; index < times && !res.destroyed; index += 1) {
    written += chunk.length;
    if (!res.write(chunk)) {
      await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
    }
  }
  if (!res.destroyed) res.end();
  return written;
}

export function json(request: RecordedRequest): unknown {
  return JSON.parse(request.body.toString('utf8'));
}

/** A multipart body as the Fetch API reads it (what undici's FormData parser accepts, real servers accept too). */
export async function multipart(request: RecordedRequest): Promise<FormData> {
  return new Response(request.body, {
    headers: { 'content-type': String(request.headers['content-type']) },
  }).formData();
}

/** The colour a fake paints for a prompt: the same prompt, the same colour; another prompt, another colour. */
export function promptColour(prompt: string): [number, number, number] {
  let hash = 0x811c9dc5;
  for (let index = 0; index < prompt.length; index += 1) hash = Math.imul(hash ^ prompt.charCodeAt(index), 0x01000193);
  return [(hash >>> 16) & 0xff, (hash >>> 8) & 0xff, hash & 0xff];
}

export interface Raw {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

export async function decode(png: Buffer, channels: 3 | 4 = 3, size?: { width: number; height: number }): Promise<Raw> {
  let image = sharp(png);
  if (size) image = image.resize(size.width, size.height, { fit: 'fill' });
  image = channels === 3 ? image.removeAlpha() : image.ensureAlpha();
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/**
 * What every fake "generates": the init image, moved towards the prompt's colour by `denoise` where `paint` (one
 * value 0..1 per pixel) says so. A test reads the mask's polarity, the denoise and the prompt back from the pixels.
 */
export async function paint(
  image: Raw,
  paintAt: (pixel: number) => number,
  prompt: string,
  denoise: number,
): Promise<Buffer> {
  const colour = promptColour(prompt);
  const out = Buffer.alloc(image.width * image.height * 3);
  for (let pixel = 0; pixel < image.width * image.height; pixel += 1) {
    const amount = paintAt(pixel) * denoise;
    for (let channel = 0; channel < 3; channel += 1) {
      const value = image.data[pixel * image.channels + channel];
      out[pixel * 3 + channel] = Math.round(value + (colour[channel] - value) * amount);
    }
  }
  return sharp(out, { raw: { width: image.width, height: image.height, channels: 3 } })
    .png()
    .toBuffer();
}

/**
 * A PNG whose header claims `width` x `height` and whose data is one tiny deflate stream: what a hostile generator
 * answers to make its client decode gigapixels. Only a reader that checks the header first refuses it cheaply.
 */
export function pngClaiming(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
