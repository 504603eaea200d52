import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

/** Children this run started, stopped at the end (and on Ctrl-C) by their own handles. */
const children = new Set();

/** Keeps the last `limit` characters a child wrote, to explain a failed start. */
function tail(stream, limit = 4_000) {
  let text = '';
  stream.on('data', (chunk) => {
    text = (text + chunk.toString('utf8')).slice(-limit);
  });
  return () => text;
}

/** Starts `node ...nodeArgs <script> ...args` and waits for its first stdout line, `{"port": N}`. */
export async function startNodeServer(script, args, env, nodeArgs = []) {
  // stdin a pipe: a server that stops when its stdin ends (s3rver-main.mjs) stops with this process.
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  const stderr = tail(child.stderr);
  const lines = createInterface({ input: child.stdout });
  try {
    const line = await withTimeout(
      new Promise((resolve, reject) => {
        lines.once('line', resolve);
        child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${stderr()}`)));
      }),
      START_TIMEOUT_MS,
      `${script} did not report its port`,
    );
    lines.on('line', () => {}); // keep draining stdout
    return { child, port: JSON.parse(line).port };
  } catch (error) {
    await stop(child);
    throw error;
  }
}

/** A TCP port free right now on 127.0.0.1 (for a server that cannot report the port it got). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts the built service (`node ...nodeArgs dist/apps/api/src/main.js`) on a free port and waits until
 * `GET /health/ready` answers 200. Its output is kept for the error message of a failed start.
 */
export async function startService(main, env, nodeArgs = []) {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, main], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const stdout = tail(child.stdout);
  const stderr = tail(child.stderr);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (Date.now() < deadline && !exited) {
    const ready = await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) return { child, base };
    await sleep(250);
  }
  await stop(child);
  throw new Error(`the service did not become ready: ${exited ? 'it exited' : 'timeout'}\n${stderr()}${stdout()}`);
}

/**
 * Starts the built worker app (`node ...nodeArgs dist/apps/worker/src/main.js`) and waits until it logs that it
 * is connected to the queue (a line written at every LOG_LEVEL).
 */
export async function startWorker(main, env, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const stdout = tail(child.stdout);
  const stderr = tail(child.stderr);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null) {
    if (stdout().includes('connected to queue')) return { child };
    await sleep(100);
  }
  await stop(child);
  throw new Error(`the worker did not start\n${stderr()}${stdout()}`);
}

/** SIGTERM, then SIGKILL after a grace period; resolves when the child is gone. */
export async function stop(child) {
  children.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await gone;
  clearTimeout(timer);
}

export async function stopAll() {
  await Promise.all([...children].map(stop));
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function withTimeout(promise, ms, message) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
