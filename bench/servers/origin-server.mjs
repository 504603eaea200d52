// The input's origin: serves the files of one folder from memory on 127.0.0.1 (random port), GET and HEAD.
// Run as its own process so that serving the 3 MB input costs neither the load generator nor the servers
// under test any event-loop time. Prints {"port": N} on its first line of standard output.
import { createServer } from 'node:http';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';

const folder = process.argv[2];
const TYPES = { '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png' };
const files = new Map();
for (const name of readdirSync(folder)) {
  const path = join(folder, name);
  if (TYPES[extname(name)]) files.set(`/${name}`, { bytes: readFileSync(path), mtime: statSync(path).mtime });
}

const server = createServer((req, res) => {
  const file = files.get(new URL(req.url, 'http://origin').pathname);
  if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, {
    'content-type': TYPES[extname(req.url)],
    'content-length': file.bytes.length,
    'last-modified': file.mtime.toUTCString(),
    // No caching anywhere: every request of every method downloads the input again.
    'cache-control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : file.bytes);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
