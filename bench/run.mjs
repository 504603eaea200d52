// npm run bench: see bench/README.md. Every process of the run, this one included (it runs (a)), must start
// with MALLOC_ARENA_MAX=2 like the service's start script: glibc reads it at start, and sharp 0.35 gives
// each image one thread per core only when it is set (else one thread). So without it, start again with it
// (and with the start script's MALLOC_MMAP_THRESHOLD_, which the service's memory depends on, and its
// GLIBC_TUNABLES, which its speed with large buffers depends on).
import { spawnSync } from 'node:child_process';

if (
  process.env.MALLOC_ARENA_MAX !== '2' ||
  process.env.MALLOC_MMAP_THRESHOLD_ === undefined ||
  process.env.GLIBC_TUNABLES === undefined
) {
  const child = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: {
      ...process.env,
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '1048576',
      GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1',
    },
  });
  process.exit(child.status ?? 1);
}
const { run } = await import('./lib/bench.mjs');
await run();
