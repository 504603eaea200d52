// The vision suite's generic row: one operation on one input, measured on a fresh process of its own (so that its
// peak RSS is that operation's): one warm-up request (the model loads lazily and warms up on first use), then
// `runs` requests one after the other: latency p50 and p95 (nearest rank), the process's VmHWM after them, and
// the load other processes put on the machine meanwhile. A row whose warm-up says the operation is not available
// here (501) is skipped with that reason; any other failure is recorded as such and the suite goes on.
import { readFileSync } from 'node:fs';
import { between, sample, waitForQuiet } from './cpu.mjs';
import { percentile } from './load.mjs';
import { stop } from './processes.mjs';

const REQUEST_TIMEOUT_MS = 300_000;

/** Thrown by a request when the row cannot be measured here: the row is skipped with this reason. */
export class Skip extends Error {}

/** The process's peak resident set (VmHWM, Linux /proc) in MiB, or NaN where there is none. */
export function peakRssMiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

/**
 * `POST /v1/image/edit` on the service at `base`; resolves with the response's `data` (input, output, notices)
 * once `check(data.output)` passes. 501: Skip ('not installed (501)'); any other status: an Error with the body.
 */
export async function postEdit(base, key, body, check = () => {}) {
  const response = await fetch(`${base}/v1/image/edit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  if (response.status === 501) throw new Skip('not installed (501)');
  if (response.status !== 200) throw new Error(`the service answered ${response.status}: ${text.slice(0, 400)}`);
  const data = JSON.parse(text).data;
  check(data.output);
  return data;
}

/** A result's bytes from the service itself (its tmp_url's path: PUBLIC_BASE_URL is not set in the bench). */
export async function fetchResult(base, url) {
  const response = await fetch(`${base}${new URL(url).pathname}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

/** `(output) => void` that throws unless the output is `width` x `height`. */
export function sized(width, height) {
  return (output) => {
    if (output?.width !== width || output?.height !== height) {
      throw new Error(`expected a ${width}x${height} output, got ${JSON.stringify(output)}`);
    }
  };
}

/**
 * Measures one row. `start()` starts its process: { child, ...anything `request` needs }; `request(proc)` does one
 * request and resolves with what it got (rejects when the answer is wrong); `extra(proc, first)` (optional) runs
 * after the measurement and the RSS reading, on the same process (e.g. the composite set's IoU), and its result
 * is kept in the row. Resolves with { name, p50, p95, n, peakMiB, othersCores, extra } or
 * { name, skipped } / { name, failed }.
 */
export async function measureRow({ name, start, request, runs, extra, quiet, log }) {
  let proc;
  try {
    proc = await start();
    log(`${name}: warm-up ...`);
    const first = await request(proc);
    const pids = { server: proc.child.pid };
    const { waitedMs } = await waitForQuiet(pids, quiet.next());
    quiet.spent(waitedMs);
    const before = sample(pids);
    const latencies = [];
    for (let i = 0; i < runs; i++) {
      const began = performance.now();
      await request(proc);
      latencies.push(performance.now() - began);
    }
    const load = between(before, sample(pids));
    const row = {
      name,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      n: latencies.length,
      peakMiB: peakRssMiB(proc.child.pid),
      othersCores: load?.othersCores,
    };
    log(
      `${name}: p50 ${row.p50.toFixed(0)} ms, p95 ${row.p95.toFixed(0)} ms (n ${row.n}), peak RSS ` +
        `${row.peakMiB.toFixed(0)} MiB, others ${row.othersCores?.toFixed(2)} cores`,
    );
    if (extra) row.extra = await extra(proc, first);
    return row;
  } catch (error) {
    if (error instanceof Skip) {
      log(`${name}: ${error.message}, skipped`);
      return { name, skipped: error.message };
    }
    const why = `${error?.message ?? error}${error?.cause ? ` (${error.cause.code ?? error.cause.message ?? error.cause})` : ''}`;
    const child = proc?.child;
    const state = !child
      ? ''
      : child.exitCode !== null || child.signalCode !== null
        ? `; the process had exited (${child.exitCode ?? child.signalCode})`
        : '; the process was still running';
    log(`${name}: FAILED: ${why}${state}\n${error?.stack ?? ''}`);
    return { name, failed: `${why}${state}`.slice(0, 300) };
  } finally {
    if (proc?.child) await stop(proc.child);
  }
}

/**
 * The quiet-machine waits of a suite: before each row at most `maxWaitMs`, and `budgetMs` in all (options.quiet).
 * `next()` gives the next wait's options, `spent(ms)` counts a wait.
 */
export function quietBudget({ maxCores, maxWaitMs, budgetMs }) {
  let waitedMs = 0;
  return {
    next: () => ({ maxCores, maxWaitMs: Math.max(0, Math.min(maxWaitMs, budgetMs - waitedMs)) }),
    spent: (ms) => (waitedMs += ms),
    get waitedMs() {
      return waitedMs;
    },
  };
}
