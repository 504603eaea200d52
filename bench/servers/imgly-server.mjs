// The vision suite's reference: @imgly/background-removal-node's own removeBackground (AGPL-3.0), installed by the
// bench into a folder of its own (lib/imgly-vendor.mjs; never a dependency of the service), in a process of its
// own so that its peak RSS is measured apart from everything else. Like the service it reads its input from a
// URL (the library fetches it itself) and answers with the PNG (the object kept, the background transparent).
// POST / {"input": "<url>"}. argv: the folder the package is installed in, the model (`medium`, the library's
// default, or `small`). Prints {"port": N} on its first line of standard output.
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [folder, model = 'medium'] = process.argv.slice(2);
const dist = join(folder, 'node_modules', '@imgly', 'background-removal-node', 'dist');
const { removeBackground } = await import(pathToFileURL(join(dist, 'index.mjs')).href);
// publicPath: where its model files are (the library's default is relative to the working directory);
// the same object every call, so the library's memoised session is loaded once and reused.
const config = { publicPath: `${pathToFileURL(dist).href}/`, model, output: { format: 'image/png' } };

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function handle(req, res) {
  const { input } = await readBody(req);
  const blob = await removeBackground(input, config);
  const png = Buffer.from(await blob.arrayBuffer());
  res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
  res.end(png);
}

const server = createServer((req, res) => {
  handle(req, res).catch((error) => {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error?.stack ?? error));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
