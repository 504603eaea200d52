/**
 * The README's quick start, run as a new user runs it: its set-up line in a terminal (a pseudo-terminal made by
 * `script`) on a fresh data folder, the key copied from what the terminal shows, then every shell block of the
 * quick start as written. Two things differ from a user's machine, both by configuration only: `DATA_DIR` is a
 * fresh folder and `PORT` a free one, so the README's `http://127.0.0.1:3000` is read as that port.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/process';

const ROOT = resolve(__dirname, '..');
const README_BASE = 'http://127.0.0.1:3000';

/** The ```sh blocks of the README section headed `heading`, each as its text. */
function shellBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no "## ${heading}" section`);
  const end = readme.indexOf('\n## ', start + heading.length + 4);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
}

/** A command line without its trailing `# comment`. */
function command(line: string): string {
  return line.replace(/\s+#.*$/, '').trim();
}

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const blocks = shellBlocks(readme, 'Quick start');

interface Terminal {
  output(): string;
  /** Interrupts the process group, as Ctrl-C does, and waits for it to end. */
  stop(): Promise<void>;
}

/** Runs `line` in bash under a pseudo-terminal (util-linux `script`), in its own process group. */
function inTerminal(line: string, env: Record<string, string>): Terminal {
  const child = spawn('script', ['-qefc', line, '/dev/null'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: process.env.LANG, TERM: 'xterm', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGINT');
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Runs one README block in bash, as written, with `curl` wrapped so that each call's status is known: the
 * wrapper appends `HTTP <status>` on a line of its own after each answer.
 */
function runBlock(
  block: string,
  env: Record<string, string>,
): { code: number | null; answers: { status: number; body: string }[] } {
  const wrapper = `curl() { command curl -w '\\nHTTP %{http_code}\\n' "$@"; }\nset -e\n`;
  const result = spawnSync('bash', ['-c', wrapper + block], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const answers = [...result.stdout.matchAll(/([\s\S]*?)\nHTTP (\d{3})\n/g)].map((match) => ({
    status: Number(match[2]),
    body: match[1].trim(),
  }));
  return { code: result.status, answers };
}

describe('the README quick start', () => {
  let dataDir: string;
  let base: string;
  let terminal: Terminal;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'atelier-readme-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const setup = blocks[0].split('\n').map(command).filter(Boolean);
    expect(setup).toEqual(['npm install && npm start', 'npm test']);
    terminal = inTerminal(setup[0], { DATA_DIR: dataDir, PORT: String(port) });
    const deadline = Date.now() + 150_000;
    while (Date.now() < deadline && !/listening on/.test(terminal.output())) {
      await new Promise((done) => setTimeout(done, 200));
    }
  }, 180_000);

  afterAll(async () => {
    await terminal?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts on a fresh data folder and shows the admin key last, and where it is kept', () => {
    const shown = terminal.output().replace(/\r/g, '');
    expect(shown).toMatch(/listening on/);
    const key = shown.match(/\bsk_[A-Za-z0-9_-]{43}\b/g);
    expect(key).toHaveLength(1);
    // Nothing after the key but the lines that explain it: no log line has scrolled it away.
    const after = shown.slice(shown.indexOf(key![0]));
    expect(after).not.toMatch(/"level"|\bINFO\b|\bDEBUG\b/);
    const keyFile = join(dataDir, 'first-admin-key.txt');
    expect(after).toContain(keyFile);
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(key![0]);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  });

  it('runs every later block as written, each call answered with data', async () => {
    const key = terminal.output().match(/\bsk_[A-Za-z0-9_-]{43}\b/)![0];
    const later = blocks.slice(1);
    expect(later.length).toBeGreaterThan(0);
    const answers: { status: number; body: string }[] = [];
    for (const block of later) {
      // The user pastes the key where the README shows `sk_...`; the port is the one this test chose.
      const written = block.replaceAll('sk_...', key).replaceAll(README_BASE, base);
      const run = runBlock(written, { ATELIER_KEY: key });
      expect(run.code, written).toBe(0);
      answers.push(...run.answers);
    }
    expect(answers.length).toBeGreaterThan(0);
    for (const answer of answers) {
      expect(answer.status, answer.body).toBe(200);
      expect(JSON.parse(answer.body)).toHaveProperty('data');
    }
    // The first edit's result can be downloaded and is an image.
    const edited = answers.map((answer) => JSON.parse(answer.body).data).find((data) => data?.output?.tmp_url);
    expect(edited, 'a quick-start block edits an image').toBeDefined();
    const image = await fetch(String(edited.output.tmp_url).replace(README_BASE, base));
    expect(image.status).toBe(200);
    const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
    expect(meta.width).toBe(edited.output.width);
    expect(meta.height).toBe(edited.output.height);
  });
});
