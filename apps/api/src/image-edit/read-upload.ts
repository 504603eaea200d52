import type { FastifyRequest } from 'fastify';
import { ServiceException } from '@app/common';

export interface Upload {
  bytes: Buffer;
  /** The file name the client sent, used to name results in folders; `image` when none. */
  filename: string;
  /** The `data` field parsed as JSON (the edit request without `input`); `{}` when absent. */
  data: unknown;
}

/**
 * Reads `POST /v1/image/edit/upload`: one part `file` (the image) and an optional part `data` (a JSON string).
 * The file is capped by @fastify/multipart's `fileSize` limit (413 past it); other parts are refused.
 */
export async function readUpload(request: FastifyRequest): Promise<Upload> {
  if (!request.isMultipart()) {
    throw new ServiceException(
      'UNSUPPORTED_MEDIA_TYPE',
      'Send multipart/form-data with a `file` part and a `data` part.',
    );
  }
  let file: { bytes: Buffer; filename: string } | undefined;
  let data: unknown = {};
  for await (const part of request.parts()) {
    if (part.type === 'file' && part.fieldname === 'file' && !file) {
      file = { bytes: await part.toBuffer(), filename: part.filename || 'image' };
    } else if (part.type === 'field' && part.fieldname === 'data') {
      data = parseData(part.value);
    } else {
      if (part.type === 'file') part.file.resume();
      throw ServiceException.validation({ [part.fieldname]: ['unknown part; send only `file` and `data`'] });
    }
  }
  if (!file) throw ServiceException.validation({ file: ['the image file is required (multipart part `file`)'] });
  return { ...file, data };
}

function parseData(value: unknown): unknown {
  if (typeof value !== 'string' || value.trim() === '') return {};
  try {
    return JSON.parse(value);
  } catch {
    throw new ServiceException('MALFORMED_BODY', 'The `data` part is not valid JSON.');
  }
}
