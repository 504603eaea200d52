// The edit suite's admission part: (1) goodput of upload edits under overload, 100 connections that retry a 503
// at once beside 8 connections; (2) peak RSS of the API process with eight 7000x7000 HEIC uploads at once.
// Each runs on a fresh service process, for the build under test and, with --admission-base, for another
// build (the code before a change) in the same run, side by side. See bench/README.md.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import sharp from 'sharp';
import { sleep, startService, stop } from './processes.mjs';

const EDIT = { operations: { resizing: { width: 1024, height: 1024, fit: 'bounds' } }, output: { format: 'jpeg' } };
const BOUNDARY = 'atelier-bench-boundary';
const HEIC_SIDE = 7000;
/** The pixel budget of the HEIC run: what EDIT_MEMORY_BYTES defaults to on a machine with 2 GiB. */
const HEIC_MEMORY_BUDGET = 1024 * 1024 * 1024;

/** A multipart upload body: the file and the edit (by default the suite's fit into 1024x1024) as the `data` part. */
export function uploadBody(file, filename, edit = EDIT) {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    file,
    Buffer.from(`\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"\r\n\r\n${JSON.stringify(edit)}`),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/** One upload; resolves with the status, or 'closed' when the connection failed before an answer. */
export function post(base, key, body, agent) {
  return new Promise((resolve) => {
    const request = http.request(`${base}/v1/image/edit/upload`, {
      method: 'POST',
      agent,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': body.length,
      },
    });
    request.once('response', (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode));
      response.once('error', () => resolve('closed'));
    });
    request.once('error', () => resolve('closed'));
    request.end(body);
  });
}

/** /proc/<pid>/status fields in KiB. */
export function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKiB: field('VmRSS'), peakKiB: field('VmHWM') };
}

/**
 * `connections` clients each POST the upload again as soon as the previous answer came (no back-off) for
 * `seconds`, after `warmup` seconds not counted: edits/s that succeeded and refusals (503 or a closed
 * connection) per second.
 */
async function goodput({ base, key, body, connections, seconds, warmup }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const start = performance.now();
  const from = start + warmup * 1000;
  const end = from + seconds * 1000;
  const counts = { ok: 0, busy: 0, closed: 0, other: 0 };
  const loop = async () => {
    while (performance.now() < end) {
      const status = await post(base, key, body, agent);
      if (performance.now() < from) continue;
      if (performance.now() > end) break;
      if (status === 200) counts.ok++;
      else if (status === 503) counts.busy++;
      else if (status === 'closed') counts.closed++;
      else counts.other++;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  agent.destroy();
  const perSecond = (n) => n / seconds;
  return {
    connections,
    okPerSecond: perSecond(counts.ok),
    busyPerSecond: perSecond(counts.busy),
    closedPerSecond: perSecond(counts.closed),
    other: counts.other,
  };
}

/** Eight HEIC uploads at once on a fresh process: its peak RSS (VmHWM), baseline, time and statuses. */
async function heicPeak({ base, key, body, pid }) {
  const before = memory(pid);
  const began = performance.now();
  let sampledPeak = before.rssKiB;
  const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, memory(pid).rssKiB)), 100);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const statuses = await Promise.all(Array.from({ length: 8 }, () => post(base, key, body, agent)));
  const seconds = (performance.now() - began) / 1000;
  clearInterval(sampler);
  agent.destroy();
  const after = memory(pid);
  return { beforeMiB: before.rssKiB / 1024, peakMiB: after.peakKiB / 1024, seconds, statuses };
}

/** A 7000x7000 HEIC made with Debian's heif-enc (kept in the cache folder), or undefined when it is missing. */
async function heicInput(cacheRoot, log) {
  const path = join(cacheRoot, `flat-${HEIC_SIDE}.heic`);
  if (existsSync(path)) return readFileSync(path);
  try {
    execFileSync('heif-enc', ['--version'], { stdio: 'ignore' });
  } catch {
    log('heif-enc not found (Debian: apt-get install libheif-examples): the HEIC measurement is skipped');
    return undefined;
  }
  mkdirSync(cacheRoot, { recursive: true });
  const png = join(cacheRoot, `flat-${HEIC_SIDE}.png`);
  // a flat image with a gradient strip: what it holds does not change the memory of decoding 49 MP
  const gradient = await sharp({ create: { width: 256, height: 16, channels: 3, background: '#3a6ea5' } })
    .linear(1, 0)
    .png()
    .toBuffer();
  await sharp({ create: { width: HEIC_SIDE, height: HEIC_SIDE, channels: 3, background: '#c86432' } })
    .composite([{ input: gradient, top: 100, left: 100 }])
    .png()
    .toFile(png);
  log(`encoding a ${HEIC_SIDE}x${HEIC_SIDE} HEIC with heif-enc ...`);
  execFileSync('heif-enc', ['-q', '50', '-o', `${path}.part`, png], { stdio: 'ignore' });
  renameSync(`${path}.part`, path);
  return readFileSync(path);
}

/**
 * Runs both measurements for each build: `builds` is [{ label, main }]. Every measurement starts its own
 * service process (the same environment and node options) and stops it after.
 */
export async function runAdmission(options, { builds, env, nodeArgs, photo, cacheRoot, log }) {
  const key = env.ADMIN_API_KEY;
  const photoBody = uploadBody(photo, 'photo.jpg');
  const heic = await heicInput(cacheRoot, log);
  const heicBody = heic && uploadBody(heic, 'flat.heic');
  const { seconds, warmup } = options.admission;
  const results = [];
  for (const build of builds) {
    const result = { label: build.label, goodput: [] };
    for (const connections of [8, 100]) {
      const { child, base } = await startService(build.main, env, nodeArgs);
      log(`(${build.label}) upload goodput, ${connections} connections, ${seconds} s ...`);
      result.goodput.push(await goodput({ base, key, body: photoBody, connections, seconds, warmup }));
      log(`  ${JSON.stringify(result.goodput.at(-1))}`);
      await stop(child);
    }
    if (heicBody) {
      const heicEnv = { ...env, EDIT_MEMORY_BYTES: String(HEIC_MEMORY_BUDGET) };
      const { child, base } = await startService(build.main, heicEnv, nodeArgs);
      await sleep(1000); // the start's own allocations settle
      log(`(${build.label}) eight ${HEIC_SIDE}x${HEIC_SIDE} HEIC uploads at once ...`);
      result.heic = await heicPeak({ base, key, body: heicBody, pid: child.pid });
      log(`  ${JSON.stringify(result.heic)}`);
      await stop(child);
    }
    results.push(result);
  }
  return { results, photoBytes: photo.length, heicBytes: heic?.length, heicBudget: HEIC_MEMORY_BUDGET };
}

/** The doc's admission block: one table per measurement, a column per build. */
export function renderAdmission({ machine, results, photoBytes, heicBytes, heicBudget }, options) {
  const fixed = (value, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
  const header = `| | ${results.map((r) => r.label).join(' | ')} |\n|---|${results.map(() => '---:').join('|')}|`;
  const row = (label, cell) => `| ${label} | ${results.map(cell).join(' | ')} |`;
  const lines = [
    `### Admission: uploads under overload, heavy images`,
    '',
    `${machine.date.slice(0, 10)}, ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(0)} GiB, Node ${machine.node}.`,
    '',
    `Upload edits of the suite's 12 MP JPEG (${(photoBytes / 1e6).toFixed(1)} MB, fitted into 1024x1024, JPEG)`,
    `sent again at once on every answer, no back-off, for ${options.admission.seconds} s after a`,
    `${options.admission.warmup} s warm-up; a fresh service each time, default settings (EDIT_QUEUE_LIMIT 64).`,
    '',
    header,
    ...[8, 100].flatMap((connections) => [
      row(`${connections} connections: edits/s that succeeded`, (r) => fixed(pick(r, connections)?.okPerSecond)),
      row(`${connections} connections: 503/s`, (r) => fixed(pick(r, connections)?.busyPerSecond)),
      row(`${connections} connections: connections closed before an answer/s`, (r) =>
        fixed(pick(r, connections)?.closedPerSecond),
      ),
    ]),
  ];
  if (heicBytes) {
    lines.push(
      '',
      `Eight ${HEIC_SIDE}x${HEIC_SIDE} HEIC uploads (${(heicBytes / 1024).toFixed(0)} KiB each, made by heif-enc) at once`,
      `on a fresh service, EDIT_MEMORY_BYTES=${heicBudget / 1024 ** 3} GiB (its default on a 2 GiB machine;`,
      "the code before admission ignores it). Peak RSS is the process's VmHWM.",
      '',
      header,
      row('RSS before (MiB)', (r) => fixed(r.heic?.beforeMiB, 0)),
      row('peak RSS (MiB)', (r) => fixed(r.heic?.peakMiB, 0)),
      row('all eight answered after (s)', (r) => fixed(r.heic?.seconds)),
      row('answers', (r) => (r.heic ? summariseStatuses(r.heic.statuses) : 'n/a')),
    );
  } else {
    lines.push('', 'The HEIC measurement did not run: heif-enc was not found.');
  }
  return lines.join('\n');
}

function pick(result, connections) {
  return result.goodput.find((g) => g.connections === connections);
}

function summariseStatuses(statuses) {
  const counts = new Map();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n} x ${status}`).join(', ');
}
