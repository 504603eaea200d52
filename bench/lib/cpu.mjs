import { readFileSync } from 'node:fs';

/**
 * CPU accounting from Linux's /proc, to tell a slow method from a busy machine: how much CPU the bench's
 * own processes used per image, and how many cores other processes of the (shared) machine took meanwhile.
 * Both counters are in USER_HZ ticks (1/100 s on Linux). Elsewhere every figure is undefined.
 */
const TICKS_PER_SECOND = 100;

function read(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Ticks every CPU spent busy (user, nice, system, irq, softirq, steal) since boot. */
function machineBusy() {
  const line = read('/proc/stat')?.split('\n')[0];
  if (!line?.startsWith('cpu ')) return undefined;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return user + nice + system + irq + softirq + (steal || 0);
}

/** User + system ticks of one process (fields 14 and 15 of /proc/PID/stat, counted after the name). */
function processTicks(pid) {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return 0;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * A reading of the machine's and our processes' CPU counters, with the time it was taken.
 * @param {Record<string, number>} pids our processes besides this one, by label
 */
export function sample(pids) {
  const busy = machineBusy();
  if (busy === undefined) return undefined;
  const each = { client: processTicks('self') };
  for (const [label, pid] of Object.entries(pids)) each[label] = processTicks(pid);
  const ours = Object.values(each).reduce((sum, ticks) => sum + ticks, 0);
  return { busy, ours, each, at: performance.now() };
}

/**
 * Between two readings: our CPU milliseconds, in all and by process, and other processes' average load in
 * cores.
 * @returns {{oursMs: number, eachMs: Record<string, number>, othersCores: number} | undefined}
 */
export function between(before, after) {
  if (!before || !after) return undefined;
  const seconds = (after.at - before.at) / 1000;
  const ours = after.ours - before.ours;
  const others = Math.max(0, after.busy - before.busy - ours);
  const eachMs = Object.fromEntries(
    Object.keys(after.each).map((label) => [
      label,
      ((after.each[label] - before.each[label]) / TICKS_PER_SECOND) * 1000,
    ]),
  );
  return { oursMs: (ours / TICKS_PER_SECOND) * 1000, eachMs, othersCores: others / TICKS_PER_SECOND / seconds };
}

/**
 * Waits (at most `maxWaitMs`) until other processes use at most `maxCores` cores, judged over 0.5 s windows:
 * on a shared machine a cell measured while something else compiles says little. Returns the time waited
 * (ms) and the load of the last window, so the report can say how quiet the machine was.
 */
export async function waitForQuiet(pids, { maxCores, maxWaitMs }) {
  const windowMs = 500;
  const began = performance.now();
  let load;
  if (maxWaitMs <= 0) return { waitedMs: 0, load };
  for (let attempt = 0; attempt <= Math.ceil(maxWaitMs / windowMs); attempt++) {
    const before = sample(pids);
    if (!before) break;
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    load = between(before, sample(pids)).othersCores;
    if (load <= maxCores || performance.now() - began >= maxWaitMs) break;
  }
  return { waitedMs: Math.max(0, performance.now() - began - windowMs), load };
}
