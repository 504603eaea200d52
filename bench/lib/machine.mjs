import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import sharp from 'sharp';

const require = createRequire(import.meta.url);
/** ipx's package folder (its exports map hides package.json). */
const IPX_DIR = join(dirname(require.resolve('ipx')), '..');

/** The first matching line of /proc/cpuinfo (Linux), e.g. the CPU's full model name. */
function cpuinfo(field) {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((l) => l.startsWith(field));
    return line?.split(':')[1]?.trim();
  } catch {
    return undefined;
  }
}

/** The sharp and libvips versions ipx runs on (it may bring its own copy of sharp). */
function ipxSharpVersions() {
  try {
    const ipxRequire = createRequire(join(IPX_DIR, 'package.json'));
    const { versions } = ipxRequire('sharp');
    return { sharp: versions.sharp, vips: versions.vips, aom: versions.aom, heif: versions.heif };
  } catch {
    return undefined;
  }
}

/** What the figures were measured on. */
export function describeMachine() {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    cpu: cpus[0]?.model ?? 'unknown',
    mhz: Number(cpuinfo('cpu MHz')) || cpus[0]?.speed,
    cores: os.availableParallelism(),
    memoryGiB: os.totalmem() / 2 ** 30,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    sharp: sharp.versions.sharp,
    vips: sharp.versions.vips,
    aom: sharp.versions.aom,
    heif: sharp.versions.heif,
    mozjpeg: sharp.versions.mozjpeg,
    webp: sharp.versions.webp,
    sharpConcurrency: sharp.concurrency(),
    uvThreadpool: process.env.UV_THREADPOOL_SIZE ?? '4 (default)',
    mallocArenaMax: process.env.MALLOC_ARENA_MAX ?? 'unset',
    ipx: JSON.parse(readFileSync(join(IPX_DIR, 'package.json'), 'utf8')).version,
    ipxSharp: ipxSharpVersions(),
    loadAverage: os.loadavg(),
  };
}
