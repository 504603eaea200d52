import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import type { Environment } from '@app/common';

const ROOT = resolve(__dirname, '../..');
export const API_MAIN = resolve(ROOT, 'dist/apps/api/src/main.js');
export const KEYS_CLI = resolve(ROOT, 'dist/apps/api/src/cli/keys-cli.js');
export const WORKER_MAIN = resolve(ROOT, 'dist/apps/worker/src/main.js');

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Only what a process needs from this one's environment: no DATABASE_URL or REDIS_URL leaks in. */
function baseEnvironment(): Environment {
  const { PATH, HOME, LANG } = process.env;
  return { PATH, HOME, LANG, NODE_ENV: 'test' };
}

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export function startProcess(script: string, args: string[], env: Environment): RunningProcess {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    env: { ...baseEnvironment(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return {
    child,
    output: () => output,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs a command to its end (bounded by a timeout) and returns its code and output. */
export async function runToEnd(
  script: string,
  args: string[],
  env: Environment,
  timeoutMs = 30_000,
): Promise<{ code: number | null; output: string }> {
  const running = startProcess(script, args, env);
  const timer = setTimeout(() => running.child.kill('SIGKILL'), timeoutMs);
  const code = await running.exited;
  clearTimeout(timer);
  return { code, output: running.output() };
}

export interface RunningApi extends RunningProcess {
  url: string;
}

/** Starts the built API as its own process on loopback and waits until it is live. */
export async function startApiProcess(env: Environment): Promise<RunningApi> {
  const port = await freePort();
  const running = startProcess(API_MAIN, [], { HOST: '127.0.0.1', PORT: String(port), ...env });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null) throw new Error(`API exited early:\n${running.output()}`);
    try {
      if ((await fetch(`${url}/health/live`)).ok) return { ...running, url };
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  await running.stop();
  throw new Error(`API did not start:\n${running.output()}`);
}
