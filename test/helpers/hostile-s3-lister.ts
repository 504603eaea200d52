import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';

/** How the fake answers ListObjectsV2 (`GET /<bucket>?list-type=2`). */
export type HostileListing =
  /** Every page truncated, each with a new continuation token: a listing that never ends. */
  | 'endless'
  /** The second page hands back the token of the first: a loop. */
  | 'repeated-token'
  /** One page of `hugeBytes` bytes (a valid document padded with keys), streamed without a Content-Length. */
  | 'huge-page';

export interface HostileS3Lister {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  /** The continuation tokens of the list requests received, in order ('' for a first page). */
  listRequests: string[];
  stop(): Promise<void>;
}

const XML_HEAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">';

function contents(keys: string[]): string {
  return keys
    .map((key) => `<Contents><Key>${key}</Key><Size>10</Size><StorageClass>STANDARD</StorageClass></Contents>`)
    .join('');
}

/**
 * A protocol-faithful S3-compatible endpoint on loopback that answers ListObjectsV2 as a hostile tenant's store
 * could (issue 25, item 7), and 404 NoSuchKey to anything else. `keysPerPage` image keys per page.
 */
export async function startHostileS3Lister(
  behaviour: HostileListing,
  options: { keysPerPage?: number; hugeBytes?: number } = {},
): Promise<HostileS3Lister> {
  const listRequests: string[] = [];
  const sockets = new Set<Socket>();
  const perPage = options.keysPerPage ?? 3;
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const [, bucket = ''] = url.pathname.split('/');
    if (url.searchParams.get('list-type') !== '2') {
      const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>none</Message></Error>`;
      response.writeHead(404, { 'content-type': 'application/xml' }).end(body);
      return;
    }
    const token = url.searchParams.get('continuation-token') ?? '';
    listRequests.push(token);
    const page = listRequests.length;
    const keys = Array.from({ length: perPage }, (_, i) => `in/p${page}-${i}.jpg`);
    const head = `${XML_HEAD}<Name>${bucket}</Name><Prefix>in/</Prefix><MaxKeys>1000</MaxKeys>`;
    response.writeHead(200, { 'content-type': 'application/xml' });
    if (behaviour === 'huge-page') {
      // Written as fast as the client reads it; the client's cap ends the connection.
      response.write(`${head}<KeyCount>0</KeyCount><IsTruncated>false</IsTruncated>`);
      const total = options.hugeBytes ?? 32 * 1024 * 1024;
      const chunk = contents(Array.from({ length: 200 }, (_, i) => `in/${'x'.repeat(200)}-${i}.jpg`));
      let sent = 0;
      const more = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', more);
        }
        response.end('</ListBucketResult>');
      };
      more();
      return;
    }
    const next = behaviour === 'repeated-token' ? 'loop-token' : `token-${page}`;
    response.end(
      `${head}<KeyCount>${perPage}</KeyCount><IsTruncated>true</IsTruncated>` +
        (token ? `<ContinuationToken>${token}</ContinuationToken>` : '') +
        `<NextContinuationToken>${next}</NextContinuationToken>${contents(keys)}</ListBucketResult>`,
    );
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    listRequests,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
