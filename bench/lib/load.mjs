/**
 * Closed-loop load: `concurrency` workers, each sending its next request as soon as its last one is answered.
 * The measured window opens at the `warmup`-th completion (every worker busy, first-call costs paid) and
 * closes at the (`warmup` + `measured`)-th; workers keep the load on until it closes, so the window never
 * sees the ramp-up or the tail where fewer requests are in flight. Requests still running when it closes
 * are awaited (a server must be idle before the next cell starts) but not counted.
 *
 * @param {() => Promise<void>} request one unit of work; rejects when its answer is wrong
 * @param {{concurrency: number, warmup: number, measured: number}} plan counts of requests
 * @returns {Promise<{latencies: number[], seconds: number, requests: number}>} latencies (ms) of the
 *   requests completed inside the window, the window's length (s), and all requests done (window or not)
 */
export async function closedLoop(request, { concurrency, warmup, measured }) {
  const total = warmup + measured;
  let issued = 0;
  let completed = 0;
  let windowStart = 0;
  let windowEnd = 0;
  const latencies = [];
  let failure;

  async function worker() {
    // Bounded: at most `total + concurrency - 1` requests are issued in all.
    while (completed < total && issued < total + concurrency - 1 && !failure) {
      issued++;
      const start = performance.now();
      try {
        await request();
      } catch (error) {
        failure ??= error;
        return;
      }
      const end = performance.now();
      completed++;
      if (completed === warmup) windowStart = end;
      else if (completed > warmup && completed <= total) {
        latencies.push(end - start);
        if (completed === total) windowEnd = end;
      }
    }
  }

  if (warmup < 1) throw new Error('warmup must be at least 1 (it opens the measured window)');
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (failure) throw failure;
  return { latencies, seconds: (windowEnd - windowStart) / 1000, requests: completed };
}

/** Nearest-rank percentile (`p` in 0..100) of unsorted `values`. */
export function percentile(values, p) {
  const sorted = [...values].sort((x, y) => x - y);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

const sum = (values) => values.reduce((total, value) => total + value, 0);

/**
 * Merges rounds of one cell: throughput over all windows together, percentiles over all latencies, and,
 * where a round carries `cpu` ({oursMs, eachMs, othersCores} over `elapsed` s), our CPU ms per request (in
 * all and by process) and the other processes' load averaged over time.
 */
export function summarise(rounds) {
  const latencies = rounds.flatMap((round) => round.latencies);
  const withCpu = rounds.filter((round) => round.cpu);
  const elapsed = sum(withCpu.map((round) => round.elapsed));
  const requests = sum(withCpu.map((round) => round.requests));
  return {
    count: latencies.length,
    throughput: latencies.length / sum(rounds.map((round) => round.seconds)),
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    cpuMsPerImage: sum(withCpu.map((round) => round.cpu.oursMs)) / requests,
    cpuMsPerImageBy: Object.fromEntries(
      Object.keys(withCpu[0]?.cpu.eachMs ?? {}).map((label) => [
        label,
        sum(withCpu.map((round) => round.cpu.eachMs[label])) / requests,
      ]),
    ),
    othersCores: sum(withCpu.map((round) => round.cpu.othersCores * round.elapsed)) / elapsed,
  };
}
