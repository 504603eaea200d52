import { Transform, type TransformCallback } from 'node:stream';
import { ServiceException, SNIFF_BYTES } from '@app/common';
import { logConnectionFailure } from './connection-failure';

/**
 * What a client is told about a download that failed before the server answered, whatever the cause (see
 * logConnectionFailure): refused, reset, timed out, unreachable, a name that does not resolve, a TLS handshake
 * with something that does not speak TLS.
 */
const UNREACHABLE = 'the server could not be reached or did not answer';

/**
 * Reasons a client may be told: failures after a server answered (its certificate, its HTTP, its body), which say
 * no more than an HTTP status would.
 */
const ANSWERED_REASONS: Readonly<Record<string, string>> = {
  ERR_STREAM_PREMATURE_CLOSE: 'the connection closed before the end of the body',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the TLS certificate does not name the host',
  CERT_HAS_EXPIRED: 'the TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the TLS certificate is not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'the TLS certificate is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the TLS certificate is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the TLS certificate is not trusted',
};

/**
 * A ServiceException as it is; any other error as FETCH_FAILED with a short reason (no code, address, port or
 * stack), its cause logged. `label` is the URL as describeUrl writes it.
 */
export function toFetchError(error: unknown, label: string): ServiceException {
  if (error instanceof ServiceException) return error;
  logConnectionFailure(label, error);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason = code?.startsWith('HPE_')
    ? 'the server sent an invalid HTTP response'
    : ((code && ANSWERED_REASONS[code]) ?? UNREACHABLE);
  return new ServiceException('FETCH_FAILED', `Download of ${label} failed: ${reason}.`);
}

/**
 * What a body that failed before its end (`IncomingMessage.complete` still false) failed with, told as a body cut
 * short: Node fails such a response with a reset (`ECONNRESET`), which toFetchError would tell as a server never
 * reached. A ServiceException (the cap, the deadline) stays as it is.
 */
export function cutShort(error: unknown, complete: boolean): unknown {
  if (complete || error instanceof ServiceException) return error;
  return Object.assign(new Error('the connection closed before the end of the body'), {
    code: 'ERR_STREAM_PREMATURE_CLOSE',
    cause: error,
  });
}

export function tooLarge(label: string, maxBytes: number, declared?: number): ServiceException {
  const size = declared === undefined ? 'is larger than' : `declares ${declared} bytes, more than`;
  return new ServiceException('FETCH_TOO_LARGE', `The download of ${label} ${size} the limit of ${maxBytes} bytes.`);
}

/**
 * The total time limit of one download and the caller's cancellation, as one signal whose reason is the
 * ServiceException to fail with. Dispose of it when the download ends, or its timer keeps running.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;

  /** @param timeoutMs total time limit, in milliseconds. */
  constructor(
    timeoutMs: number,
    private readonly label: string,
    private readonly caller?: AbortSignal,
  ) {
    this.timer = setTimeout(() => this.abort(`Download of ${label} timed out after ${timeoutMs} ms.`), timeoutMs);
    if (caller?.aborted) this.onCallerAbort();
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** Calls `action` with the reason when the deadline passes (at once if it has); returns the unsubscribe. */
  onAbort(action: (reason: ServiceException) => void): () => void {
    const signal = this.controller.signal;
    if (signal.aborted) {
      action(signal.reason as ServiceException);
      return () => undefined;
    }
    const listener = () => action(signal.reason as ServiceException);
    signal.addEventListener('abort', listener, { once: true });
    return () => signal.removeEventListener('abort', listener);
  }

  /** Settles like `promise`, or rejects with the reason when the deadline passes first. */
  race<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const unsubscribe = this.onAbort(reject);
      promise.then(resolve, reject).finally(unsubscribe);
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }

  private readonly onCallerAbort = () => this.abort(`Download of ${this.label} was cancelled.`);

  private abort(message: string): void {
    this.controller.abort(new ServiceException('FETCH_FAILED', message));
  }
}

/**
 * The body of a download as handed to the caller: counts bytes and fails with FETCH_TOO_LARGE past the cap,
 * keeps the first bytes for sniffing (without holding them back from the reader), and turns every error it is
 * destroyed with into a fetch ServiceException.
 */
export class BodyGuard extends Transform {
  /** The first {@link SNIFF_BYTES} bytes (fewer when the body is shorter); rejects if the body fails first. */
  readonly head: Promise<Buffer>;
  private received = 0;
  private headChunks: Buffer[] = [];
  private headLength = 0;
  private settleHead?: (error?: Error) => void;

  /**
   * @param maxBytes largest body accepted, in bytes.
   * @param complete whether the response read is complete (IncomingMessage.complete): a failure before is a cut.
   */
  constructor(
    private readonly maxBytes: number,
    private readonly label: string,
    private readonly complete: () => boolean = () => true,
  ) {
    super();
    this.head = new Promise<Buffer>((resolve, reject) => {
      this.settleHead = (error) => {
        this.settleHead = undefined;
        if (error) reject(error);
        else resolve(Buffer.concat(this.headChunks));
        this.headChunks = [];
      };
    });
    // Whoever needs the head awaits it; a body that fails after nobody does must not be an unhandled rejection.
    this.head.catch(() => undefined);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.maxBytes) return callback(tooLarge(this.label, this.maxBytes));
    if (this.settleHead) {
      this.headChunks.push(chunk);
      this.headLength += chunk.length;
      if (this.headLength >= SNIFF_BYTES) this.settleHead();
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.settleHead?.();
    callback();
  }

  override _destroy(error: Error | null, callback: (error: Error | null) => void): void {
    const failure = error ? toFetchError(cutShort(error, this.complete()), this.label) : null;
    this.settleHead?.(failure ?? new ServiceException('FETCH_FAILED', `Download of ${this.label} was closed.`));
    callback(failure);
  }
}

/**
 * Holds `total` bytes (the running total) of memory before they are read; may wait, or throw to refuse. The
 * edit's input budget implements it (libs/editing, EditAdmission).
 */
export type ReserveBytes = (total: number) => Promise<void>;

/**
 * Reads a whole body into memory, failing with FETCH_TOO_LARGE as soon as it passes `maxBytes` (or at once
 * when the declared size does), so an oversized object is never held in full. With a declared size the body
 * goes straight into one buffer of that size: no list of chunks and no second copy (large inputs otherwise
 * cost twice their size in short-lived memory, which V8 counts towards its next full collection).
 * `reserve`, when given, is asked for the declared size (or 0) before anything is held, then for each larger
 * running total before it is kept; the stream is not read while it waits.
 */
export async function readWhole(
  stream: NodeJS.ReadableStream & { destroy(error?: Error): void },
  maxBytes: number,
  label: string,
  declared?: number,
  reserve?: ReserveBytes,
): Promise<Buffer> {
  if (declared !== undefined && declared > maxBytes) {
    stream.destroy();
    throw tooLarge(label, maxBytes, declared);
  }
  let reserved = declared ?? 0;
  try {
    await reserve?.(reserved);
  } catch (error) {
    stream.destroy();
    throw error;
  }
  const whole = declared ? Buffer.allocUnsafe(declared) : undefined;
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of stream) {
    const bytes = chunk as Buffer;
    if (received + bytes.length > maxBytes) {
      stream.destroy();
      throw tooLarge(label, maxBytes);
    }
    if (reserve && received + bytes.length > reserved) {
      reserved = received + bytes.length;
      await reserve(reserved);
    }
    // a body longer than declared falls back to the list of chunks rather than overflowing
    if (whole && chunks.length === 0 && received + bytes.length <= whole.length) bytes.copy(whole, received);
    else {
      if (whole && chunks.length === 0) chunks.push(whole.subarray(0, received));
      chunks.push(bytes);
    }
    received += bytes.length;
  }
  if (whole && chunks.length === 0) return whole.subarray(0, received);
  return Buffer.concat(chunks, received);
}
