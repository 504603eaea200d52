// (f) The leanest server that does the service's work: it downloads its input with node:http (keep-alive, the
// body read into one buffer of the announced length: no copy), reads the input's header for the size and runs
// the same sharp pipeline as (d) (progressive JPEG with the sRGB profile embedded, threads shared as the service
// shares them), but, like the service, it keeps the result and answers a small JSON: the result is written to a
// file on disk (the service's embedded temporary bucket is a folder on disk too). No auth, no validation, no
// logging, no expiry bookkeeping. The bench runs it with the service's node options.
// POST / {"input": "<url>", "format": "jpeg"|"webp"|"avif"} -> {"path", "width", "height", "size"}.
// argv[2]: the folder for the results. Prints {"port": N} on its first line.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { Agent, createServer, get } from 'node:http';
import { join } from 'node:path';
import sharp from 'sharp';
import { editImage, fitBounds, ThreadShare } from '../lib/sharp-work.mjs';

const folder = process.argv[2];
const threads = new ThreadShare();
const EXTENSIONS = { jpeg: 'jpg', webp: 'webp', avif: 'avif' };

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

const agent = new Agent({ keepAlive: true });

/** The input's bytes: one GET on a kept-alive connection, copied once into a buffer of the announced length. */
function download(url) {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        return reject(new Error(`input answered ${response.statusCode}`));
      }
      const bytes = Buffer.allocUnsafe(Number(response.headers['content-length']));
      let at = 0;
      response.on('data', (chunk) => (at += chunk.copy(bytes, at)));
      response.on('end', () => (at === bytes.length ? resolve(bytes) : reject(new Error('input cut short'))));
      response.on('error', reject);
    }).on('error', reject);
  });
}

async function handle(req, res) {
  const { input, format } = await readBody(req);
  const bytes = await download(input);
  const { width, height } = await sharp(bytes, { limitInputPixels: false }).metadata();
  const size = fitBounds(width, height);
  const output = await editImage(bytes, format, size, threads);
  const path = join(folder, `${randomBytes(32).toString('base64url')}.${EXTENSIONS[format]}`);
  await writeFile(path, output, { mode: 0o600 });
  const body = JSON.stringify({ path, ...size, size: output.length });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = createServer((req, res) => {
  handle(req, res).catch((error) => {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error?.message ?? error));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
