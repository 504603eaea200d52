// (c) ipx v3 (an image server on sharp) with its Node server helper and HTTP storage allowed for
// 127.0.0.1 only. URL: /<modifiers>/<http source URL>. Prints {"port": N} on its first line.
// Note: ipx 3.1.1 brings its own sharp (0.34.5, libvips 8.17.3) in node_modules/ipx/node_modules.
import { createServer } from 'node:http';
import { createIPX, createIPXNodeServer, ipxHttpStorage } from 'ipx';

const ipx = createIPX({ httpStorage: ipxHttpStorage({ domains: ['127.0.0.1'] }) });
const server = createServer(createIPXNodeServer(ipx));
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
