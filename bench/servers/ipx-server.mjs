// (c) ipx v3 (an image server on sharp) with its Node server helper and HTTP storage allowed for
// 127.0.0.1 only. URL: /<modifiers>/<http source URL>. Prints {"port": N} on its first line.
// Note: ipx 3.1.1 brings its own sharp (0.34.5, libvips 8.17.3) in node_modules/ipx/node_modules.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createIPX, createIPXNodeServer, ipxHttpStorage } from 'ipx';
import sharp from 'sharp';

// sharp 0.35 uses one thread per core for each image when MALLOC_ARENA_MAX is set (as here); ipx's sharp
// 0.34 keeps one thread on glibc whatever the variable says. Same threads per image as the others:
const require = createRequire(import.meta.url);
const ipxSharp = createRequire(join(dirname(require.resolve('ipx')), '..', 'package.json'))('sharp');
ipxSharp.concurrency(sharp.concurrency());

const ipx = createIPX({ httpStorage: ipxHttpStorage({ domains: ['127.0.0.1'] }) });
const server = createServer(createIPXNodeServer(ipx));
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
