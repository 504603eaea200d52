import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, editImage, ThreadShare } from './sharp-work.mjs';
import { startNodeServer, startService } from './processes.mjs';

const REQUEST_TIMEOUT_MS = 120_000;
const serverScript = (name) => fileURLToPath(new URL(`../servers/${name}`, import.meta.url));

/**
 * The five ways of doing the same edit. Each method's `request(format)` returns a function doing one edit
 * and checking its answer (it rejects when the answer is wrong); `output(format)` does one edit and returns
 * the encoded bytes, so that the run can check them once before measuring.
 *
 * @typedef {{id: string, label: string, request(format: string): () => Promise<void>,
 *   output(format: string): Promise<Buffer>, close?(): Promise<void>}} Method
 */

/** (a) sharp in the load generator's process on the input already in memory. */
export function inProcess({ photo, size }) {
  return {
    id: 'a',
    label: 'sharp in-process',
    request: (format) => async () => void (await editImage(photo, format, size)),
    output: (format) => editImage(photo, format, size),
  };
}

/**
 * (e) like (a), with libvips' threads shared among the images in flight as the service shares them: what a
 * hand-tuned sharp loop gets, next to (a)'s sharp defaults.
 */
export function inProcessShared({ photo, size }) {
  const share = new ThreadShare();
  return {
    id: 'e',
    label: 'sharp in-process, threads shared as (b)',
    request: (format) => async () => void (await editImage(photo, format, size, share)),
    output: (format) => editImage(photo, format, size, share),
  };
}

/** (b) the service: POST /v1/image/edit with the input on the origin; the result lands in the temporary bucket. */
export async function service({ inputUrl, main, env, serviceNodeArgs }) {
  const { child, base } = await startService(main, env, serviceNodeArgs);
  const headers = { authorization: `Bearer ${env.ADMIN_API_KEY}`, 'content-type': 'application/json' };
  const edit = async (format) => {
    const body = JSON.stringify({
      input: inputUrl,
      operations: { resizing: { width: 1024, height: 1024, fit: 'bounds' } },
      output: { format },
    });
    const response = await fetch(`${base}/v1/image/edit`, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`service answered ${response.status}: ${text.slice(0, 500)}`);
    const output = JSON.parse(text).data?.output;
    if (output?.width !== 1024) throw new Error(`service answered an unexpected output: ${text.slice(0, 500)}`);
    return output;
  };
  return {
    id: 'b',
    label: `service POST /v1/image/edit${serviceNodeArgs?.length ? ` (node ${serviceNodeArgs.join(' ')})` : ''}`,
    child,
    request: (format) => async () => void (await edit(format)),
    output: async (format) => {
      const { tmp_url: url } = await edit(format);
      return fetchBytes(url, 'GET');
    },
  };
}

/** (c) ipx: GET /<modifiers>/<origin URL>; the answer is the image. */
export async function ipx({ inputUrl, env }) {
  const { child, port } = await startNodeServer(serverScript('ipx-server.mjs'), [], env);
  const url = (format) => `http://127.0.0.1:${port}/${IPX_MODIFIERS[format]}/${inputUrl}`;
  return {
    id: 'c',
    label: 'ipx',
    child,
    request: (format) => async () => void (await fetchBytes(url(format), 'GET')),
    output: (format) => fetchBytes(url(format), 'GET'),
  };
}

/** ipx modifiers for the same edit: fit inside 1024x1024 (Lanczos-3 is sharp's default kernel), the format. */
export const IPX_MODIFIERS = {
  jpeg: 's_1024x1024,fit_inside,f_jpeg,q_85',
  webp: 's_1024x1024,fit_inside,f_webp,q_75',
  avif: 's_1024x1024,fit_inside,f_avif,q_50',
};

/** (d) the bare node:http server around the same sharp work: POST {input, format}; the answer is the image. */
export async function bare({ inputUrl, env }) {
  const { child, port } = await startNodeServer(serverScript('bare-server.mjs'), [], env);
  const edit = (format) => fetchBytes(`http://127.0.0.1:${port}/`, 'POST', JSON.stringify({ input: inputUrl, format }));
  return {
    id: 'd',
    label: 'bare node:http + sharp',
    child,
    request: (format) => async () => void (await edit(format)),
    output: edit,
  };
}

/**
 * (f) the lean server: (d) that keeps its result as the service does, in a file on disk, and answers a small
 * JSON (POST {input, format}); the floor for the service's own cost (the issue's "leanest server").
 */
export async function lean({ inputUrl, env, folder, serviceNodeArgs }) {
  const results = join(folder, 'lean-results');
  mkdirSync(results, { recursive: true });
  // With the service's node options (its heap size sets how often V8 collects), so that only the code differs.
  const { child, port } = await startNodeServer(serverScript('lean-server.mjs'), [results], env, serviceNodeArgs);
  const edit = async (format) => {
    const answer = await fetchBytes(`http://127.0.0.1:${port}/`, 'POST', JSON.stringify({ input: inputUrl, format }));
    const written = JSON.parse(answer.toString('utf8'));
    if (written.width !== 1024) throw new Error(`lean server answered ${answer.toString('utf8').slice(0, 500)}`);
    return written;
  };
  return {
    id: 'f',
    label: 'lean node:http + sharp, result to disk',
    child,
    request: (format) => async () => void (await edit(format)),
    output: async (format) => readFileSync((await edit(format)).path),
  };
}

/** The answer's bytes; rejects on any status but 200. */
async function fetchBytes(url, method, body) {
  const response = await fetch(url, {
    method,
    body,
    headers: body ? { 'content-type': 'application/json' } : undefined,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) {
    throw new Error(`${method} ${url} answered ${response.status}: ${bytes.toString('utf8', 0, 500)}`);
  }
  return bytes;
}

/** Checks one output of every format: a 1024x768 image of the asked format (a broken server is not measured). */
export async function verify(method, formats, size) {
  const outputs = {};
  for (const format of formats) {
    const bytes = await method.output(format);
    const found = await describe(bytes);
    if (found.format !== format || found.width !== size.width || found.height !== size.height) {
      throw new Error(
        `${method.label} made a ${found.format} ${found.width}x${found.height} image, not a ${format} ${size.width}x${size.height}`,
      );
    }
    outputs[format] = bytes.length;
  }
  return outputs;
}
