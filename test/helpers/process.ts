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
  /** Standard output and error, interleaved as they arrived. */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** What a person presses Ctrl-C for: SIGINT, through the terminal's line discipline when there is one. */
  interrupt(): void;
  stop(): Promise<void>;
}

export interface StartOptions {
  /**
   * Run in a pseudo-terminal (util-linux `script`), as a person at a terminal starts it: standard output is a
   * TTY, and the output read back is what the terminal showed (`\r\n` line ends).
   */
  terminal?: boolean;
  /** Without a terminal: what standard input holds (a pipe, then its end); /dev/null when absent. */
  input?: string;
}

/** `value` as one word for `sh -c`. */
function shellWord(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function startProcess(
  script: string,
  args: string[],
  env: Environment,
  options: StartOptions = {},
): RunningProcess {
  const command = [process.execPath, script, ...args];
  const child = options.terminal
    ? spawn('script', ['-qec', `exec ${command.map(shellWord).join(' ')}`, '/dev/null'], {
        cwd: ROOT,
        env: { ...baseEnvironment(), ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      })
    : spawn(command[0], command.slice(1), {
        cwd: ROOT,
        env: { ...baseEnvironment(), ...env },
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
  if (!options.terminal && options.input !== undefined) child.stdin?.end(options.input);
  let output = '';
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    stderr += chunk.toString('utf8');
  });
  // 'close': the process has exited and its output has all been read.
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  const interrupt = () => {
    if (options.terminal) child.stdin?.write('\u0003');
    else child.kill('SIGINT');
  };
  return {
    child,
    output: () => output,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    interrupt,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        if (options.terminal) interrupt();
        else child.kill('SIGTERM');
      }
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits until the process has written `text`; fails with its output when it exits or takes too long. */
export async function waitForOutput(running: RunningProcess, text: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!running.output().includes(text)) {
    if (running.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`expected "${text}" in the output:\n${running.output()}`);
    }
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** Runs a command to its end (bounded by a timeout) and returns its code and output. */
export async function runToEnd(
  script: string,
  args: string[],
  env: Environment,
  timeoutMs = 30_000,
): Promise<{ code: number | null; output: string; stdout: string; stderr: string }> {
  const running = startProcess(script, args, env);
  const timer = setTimeout(() => running.child.kill('SIGKILL'), timeoutMs);
  const code = await running.exited;
  clearTimeout(timer);
  return { code, output: running.output(), stdout: running.stdout(), stderr: running.stderr() };
}

export interface RunningApi extends RunningProcess {
  url: string;
}

/** What the API writes once it listens (apps/api/src/main.ts): a port answering before it is another process's. */
const LISTENING = 'Atelier API listening on';

/**
 * Starts the built API as its own process on loopback and waits until it is live: on `env.PORT` when given (a
 * restart on the port an earlier process had), else on a free port. Live means that the port answers and that
 * this process says it listens: with test files running side by side, a port found free may be taken by another
 * file's server before this process binds it (EADDRINUSE), and its health answer is not this process's; then it
 * starts again on another port.
 */
export async function startApiProcess(env: Environment, options: StartOptions = {}): Promise<RunningApi> {
  for (let attempt = 1; ; attempt++) {
    const port = env.PORT ? Number(env.PORT) : await freePort();
    const running = startProcess(API_MAIN, [], { HOST: '127.0.0.1', ...env, PORT: String(port) }, options);
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      if (running.child.exitCode !== null) {
        if (!env.PORT && attempt < 3 && running.output().includes('EADDRINUSE')) break;
        throw new Error(`API exited early:\n${running.output()}`);
      }
      try {
        if (running.output().includes(LISTENING) && (await fetch(`${url}/health/live`)).ok) return { ...running, url };
      } catch {
        // not listening yet
      }
      await new Promise((done) => setTimeout(done, 100));
    }
    if (running.child.exitCode === null) {
      await running.stop();
      throw new Error(`API did not start:\n${running.output()}`);
    }
  }
}

/**
 * The structured (JSON) log lines of a process's output at `from` or above: `warn` (a failed attempt is a
 * warning) or `error` (pino levels 50 and 60, `error` and `fatal`).
 */
export function problemLines(output: string, from: 'warn' | 'error' = 'warn'): string[] {
  const levels = from === 'warn' ? 'warn|error|fatal' : 'error|fatal';
  return output.split('\n').filter((line) => new RegExp(`"level":"(${levels})"`).test(line));
}

/**
 * A process's standard error without the AWS SDK's notice that its later versions need a newer Node (about the
 * runtime the tests run on, printed once by every process that loads the SDK): anything left is unexpected, since
 * the service logs on standard output.
 */
export function strayStderr(running: RunningProcess): string {
  return running
    .stderr()
    .replace(
      /\(node:\d+\) Warning: NodeVersionSupportWarning: [\s\S]*?More information can be found at: \S+\n(\(Use `node --trace-warnings \.\.\.` to show where the warning was created\)\n)?/g,
      '',
    );
}
