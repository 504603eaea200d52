import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';

/** Azurite's development account (its documented well-known name and key): no real account is ever used. */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface AzuriteServer {
  /** The blob service URL of the development account: `http://127.0.0.1:<port>/devstoreaccount1`. */
  endpoint: string;
  /** A client of the test itself, to seed and inspect containers independently of the service. */
  client: BlobServiceClient;
  stop(): Promise<void>;
}

/**
 * Starts Azurite's blob service (the npm package `azurite`, Microsoft's own emulator) in a child process on
 * 127.0.0.1, in memory, with telemetry off (`--disableTelemetry`: without it Azurite reports to a cloud endpoint),
 * and creates `containers`. `--skipApiVersionCheck`: the SDK may speak a newer API version than this Azurite.
 */
export async function startAzurite(containers: string[]): Promise<AzuriteServer> {
  const location = mkdtempSync(join(tmpdir(), 'atelier-azurite-'));
  const main = resolve(__dirname, '../../node_modules/azurite/dist/src/blob/main.js');
  const child = spawn(
    process.execPath,
    [
      main,
      ...['--blobHost', '127.0.0.1', '--blobPort', '0'],
      ...['--inMemoryPersistence', '--extentMemoryLimit', '256', '--disableTelemetry', '--skipApiVersionCheck'],
    ],
    { cwd: location, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } },
  );
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const port = await new Promise<number>((done, fail) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      output += `${line}\n`;
      const listening = /listens on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      if (listening) done(Number(listening[1]));
    });
    void exited.then(() => fail(new Error(`Azurite exited before listening: ${output}`)));
  });
  const endpoint = `http://127.0.0.1:${port}/${AZURITE_ACCOUNT}`;
  const client = new BlobServiceClient(endpoint, new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY));
  for (const container of containers) await client.createContainer(container);
  return {
    endpoint,
    client,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      rmSync(location, { recursive: true, force: true });
    },
  };
}
