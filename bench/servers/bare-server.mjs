// (d) The floor: a bare node:http server around the same sharp work as the service, with no auth, no
// validation, no logging and no result storage, but the service's sharing of libvips threads among images. Like the service it downloads its input from a URL
// (fetch, keep-alive) and computes the output size from the input's header; it answers with the image.
// POST / {"input": "<url>", "format": "jpeg"|"webp"|"avif"}. Prints {"port": N} on its first line.
import { createServer } from 'node:http';
import sharp from 'sharp';
import { editImage, fitBounds, FORMATS, ThreadShare } from '../lib/sharp-work.mjs';

const threads = new ThreadShare();

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function handle(req, res) {
  const { input, format } = await readBody(req);
  const response = await fetch(input);
  if (!response.ok) throw new Error(`input answered ${response.status}`);
  const bytes = Buffer.from(await response.arrayBuffer());
  // The service's probe: the header only, no pixel limit (libs/image-pipeline/src/decode/probe.ts).
  const { width, height } = await sharp(bytes, { limitInputPixels: false }).metadata();
  const output = await editImage(bytes, format, fitBounds(width, height), threads);
  res.writeHead(200, { 'content-type': FORMATS[format].mime, 'content-length': output.length });
  res.end(output);
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
