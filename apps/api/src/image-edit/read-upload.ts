import type { FastifyRequest } from 'fastify';
import { checkJsonBody, parseJsonBody, ServiceException } from '@app/common';

export interface Upload {
  bytes: Buffer;
  /** The file name the client sent, used to name results in folders; `image` when none. */
  filename: string;
  /** The `data` part as JSON (the edit request without `input`); `{}` when absent. */
  data: unknown;
}

/** The multipart limits of the upload route (registered with @fastify/multipart in app.factory.ts). */
export function uploadLimits(maxFileBytes: number, maxDataBytes: number) {
  // one more file and field than allowed, so that an extra part is named in a 422 rather than cut off
  return { fileSize: maxFileBytes, files: 2, fields: 3, fieldSize: maxDataBytes, parts: 5 };
}

/**
 * Reads `POST /v1/image/edit/upload` (multipart: the app refuses other types before this runs): one part `file` (the image) and at most one part `data` (a JSON string,
 * or a part typed application/json). The file is capped at FETCH_MAX_BYTES (413), `data` at
 * MAX_JSON_BODY_BYTES (413); other or repeated parts are refused (422); a malformed body is a 400.
 * `admit` is called with the body's declared length (undefined when chunked) before any of it is read: it
 * may wait, or refuse, so that an upload the service has no room for costs no reading.
 */
export async function readUpload(
  request: FastifyRequest,
  maxJsonDepth: number,
  admit?: (declaredBytes: number | undefined) => Promise<void>,
): Promise<Upload> {
  const length = request.headers['content-length'];
  await admit?.(length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined);
  try {
    return await readParts(request, maxJsonDepth);
  } catch (error) {
    throw uploadError(error);
  }
}

async function readParts(request: FastifyRequest, maxJsonDepth: number): Promise<Upload> {
  let file: { bytes: Buffer; filename: string } | undefined;
  let data: unknown;
  for await (const part of request.parts()) {
    if (part.type === 'file' && part.fieldname === 'file' && !file) {
      file = { bytes: await part.toBuffer(), filename: part.filename || 'image' };
    } else if (part.type === 'field' && part.fieldname === 'data' && data === undefined) {
      if (part.valueTruncated) throw new ServiceException('PAYLOAD_TOO_LARGE', 'The `data` part is too large.');
      data = parseData(part.value, maxJsonDepth);
    } else {
      if (part.type === 'file') part.file.resume();
      throw ServiceException.validation({
        [part.fieldname]: ['unexpected part; send one `file` part and at most one `data` part'],
      });
    }
  }
  if (!file) throw ServiceException.validation({ file: ['the image file is required (multipart part `file`)'] });
  return { ...file, data: data ?? {} };
}

/**
 * A string is parsed; a part sent as application/json arrives parsed already. Both bounded as JSON bodies are, and
 * `null` members are absent, as in them.
 */
function parseData(value: unknown, maxJsonDepth: number): unknown {
  if (typeof value === 'object' && value !== null) return checkJsonBody(value, maxJsonDepth, { nullIsAbsent: true });
  if (typeof value !== 'string' || value.trim() === '') return {};
  return parseJsonBody(value, maxJsonDepth, 'The `data` part is not valid JSON.', { nullIsAbsent: true });
}

/** @fastify/multipart's and busboy's errors as the service's: 413 for size limits, 400 for malformed bodies. */
function uploadError(error: unknown): unknown {
  if (error instanceof ServiceException) return error;
  const { code, message } = error as { code?: string; message?: string };
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new ServiceException('PAYLOAD_TOO_LARGE', 'The uploaded file is larger than the limit (FETCH_MAX_BYTES).');
  }
  if (code === 'FST_INVALID_JSON_FIELD_ERROR') {
    return new ServiceException('MALFORMED_BODY', 'The `data` part is not valid JSON.');
  }
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return ServiceException.validation({ body: ['too many parts; send one `file` part and at most one `data` part'] });
  }
  if (code?.startsWith('FST_') || /multipart|boundary|unexpected end|malformed/i.test(message ?? '')) {
    return new ServiceException('BAD_REQUEST', 'The multipart body is malformed.');
  }
  return error;
}

/**
 * The upload route's 415: an image sent as the raw body (`image/jpeg`, `application/octet-stream`) or JSON sent
 * here is told what this route takes, before any content-type parser would answer with JSON's advice.
 */
export function notMultipart(): ServiceException {
  return new ServiceException(
    'UNSUPPORTED_MEDIA_TYPE',
    'Send multipart/form-data with a `file` part (the image) and a `data` part (the edit request as JSON); ' +
      'to edit an image by URL or storage reference, POST JSON to /v1/image/edit.',
  );
}
