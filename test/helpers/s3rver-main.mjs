// Runs s3rver (a real S3-compatible server) in its own process for the tests. Started by s3-server.ts with
// --openssl-legacy-provider, which s3rver's continuation-token paging needs on Node 17+.
// Usage: node --openssl-legacy-provider s3rver-main.mjs <directory> <bucket>[,<bucket>...] [port]
// Prints {"port": N} on stdout once listening on 127.0.0.1; exits on SIGTERM or when stdin closes.
import S3rver from 's3rver';
import account from 's3rver/lib/models/account.js';

const { DUMMY_ACCOUNT } = account;

// The tests' own key pair (S3RVER_ACCESS_KEY / S3RVER_SECRET_KEY), so that a secret is unique to a run and can be
// searched for in logs and responses; s3rver still refuses every other key.
if (process.env.S3RVER_ACCESS_KEY && process.env.S3RVER_SECRET_KEY) {
  DUMMY_ACCOUNT.createKeyPair(process.env.S3RVER_ACCESS_KEY, process.env.S3RVER_SECRET_KEY);
}

const [directory, buckets = '', port = '0'] = process.argv.slice(2);
const server = new S3rver({
  address: '127.0.0.1',
  port: Number(port),
  silent: true,
  directory,
  configureBuckets: buckets
    .split(',')
    .filter(Boolean)
    .map((name) => ({ name })),
});
server.run().then(
  (address) => process.stdout.write(`${JSON.stringify({ port: address.port })}\n`),
  (error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  },
);
const stop = () => server.close().finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
