// The scene suite (bench/README.md, "The scene suite"): POST /v1/scene/create with the local generative backend
// at 1 MP (1 and 4 images; an object that has alpha, and one that is cut out first), and the edit endpoint's
// outpaint and style transfer. Every row runs on a fresh service process (lib/vision-rows.mjs: one warm-up, then
// `runs` requests one after the other), so each peak RSS is that row's.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { startNodeServer, startService, stop } from './processes.mjs';
import { measureRow, postEdit, quietBudget, sized, Skip } from './vision-rows.mjs';

const SERVERS = join(import.meta.dirname, '..', 'servers');
const ROOT = join(import.meta.dirname, '..', '..');
const REQUEST_TIMEOUT_MS = 300_000;

/**
 * The issues' targets on this machine: one 1 MP image of an object with alpha, and four; an outpaint to 2 MP
 * (issue 27).
 */
export const SCENE_TARGETS_MS = { one: 1000, four: 2000, outpaint: 2000 };

/** `POST /v1/scene/create`; resolves with `data` once every output is `width` x `height` and there are `count`. */
async function postScene(base, key, body, { width, height, count }) {
  const response = await fetch(`${base}/v1/scene/create`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  if (response.status === 501) throw new Skip('not available (501)');
  if (response.status !== 200) throw new Error(`the service answered ${response.status}: ${text.slice(0, 400)}`);
  const data = JSON.parse(text).data;
  if (data.output.length !== count || data.output.some((o) => o.width !== width || o.height !== height)) {
    throw new Error(`expected ${count} outputs of ${width}x${height}, got ${JSON.stringify(data.output)}`);
  }
  return data;
}

/**
 * The inputs, written to `folder`: the service's own sample bottle (480x720, transparent background), the same
 * bottle flattened on white as JPEG (no alpha: the service cuts it out), the bottle at a third of its size (160x240,
 * enlarged by the super-resolution network), a 1024x768 photo (outpaint, style), the
 * same photo at 1200x900 (an outpaint to 2 MP) and a style reference.
 */
async function writeSceneInputs(folder) {
  const bottle = join(ROOT, 'libs', 'storage', 'samples', 'bottle.png');
  const photo = join(ROOT, 'test', 'fixtures', 'composites', 'coffee.jpg');
  const files = {
    'bottle.png': await sharp(bottle).png().toBuffer(),
    'bottle.jpg': await sharp(bottle).flatten({ background: '#ffffff' }).jpeg({ quality: 92 }).toBuffer(),
    'bottle-small.png': await sharp(bottle).resize(160, 240).png().toBuffer(),
    'photo.jpg': await sharp(photo).resize(1024, 768, { fit: 'cover' }).jpeg({ quality: 90 }).toBuffer(),
    'photo-1mp.jpg': await sharp(photo).resize(1200, 900, { fit: 'cover' }).jpeg({ quality: 90 }).toBuffer(),
    'reference.jpg': await sharp(join(ROOT, 'test', 'fixtures', 'composites', 'grass.jpg'))
      .jpeg()
      .toBuffer(),
  };
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(folder, name), bytes);
}

/** The rows: (name, kind, body, the answer's check), in the order of the doc's table. */
function sceneRows(url) {
  const marble = { prompt: 'white marble table, soft warm light' };
  const scene = (name, object, sceneBody, count, target) => ({
    name,
    target,
    kind: 'scene',
    body: {
      object: { image_url: url(object), scale: 0.7, position: { x: 0.5, y: 0.45 } },
      scene: sceneBody,
      output: { number_of_images: count, format: 'png' },
    },
    check: { width: 1024, height: 1024, count },
  });
  return [
    scene('shadows, object with alpha, 1 image', 'bottle.png', { effect: 'shadows' }, 1, 'one'),
    scene('shadows, object with alpha, 4 images', 'bottle.png', { effect: 'shadows' }, 4, 'four'),
    scene('prompt (marble), object with alpha, 1 image', 'bottle.png', marble, 1, 'one'),
    scene('prompt (marble), object with alpha, 4 images', 'bottle.png', marble, 4, 'four'),
    scene('prompt (marble), object cut out, 1 image', 'bottle.jpg', marble, 1),
    scene('prompt (marble), object cut out, 4 images', 'bottle.jpg', marble, 4),
    // the bottle at a third of its size: placed at 0.7 of the scene, enlarged about 3.7x by the network
    scene('shadows, small object enlarged by super-resolution, 1 image', 'bottle-small.png', { effect: 'shadows' }, 1),
    {
      name: 'outpaint 1024x768 by "10% 15%" (1228x998)',
      kind: 'edit',
      body: {
        input: url('photo.jpg'),
        operations: { resizing: { fit: { type: 'outpaint', outpaint_by: '10% 15%' } } },
        output: { format: 'jpeg' },
      },
      check: sized(1228, 998),
    },
    {
      name: 'outpaint 1200x900 by "220px 165px" (1640x1230, 2 MP)',
      target: 'outpaint',
      kind: 'edit',
      body: {
        input: url('photo-1mp.jpg'),
        operations: { resizing: { fit: { type: 'outpaint', outpaint_by: '220px 165px' } } },
        output: { format: 'jpeg' },
      },
      check: sized(1640, 1230),
    },
    {
      name: 'style transfer 1024x768 (reference image)',
      kind: 'edit',
      body: {
        input: url('photo.jpg'),
        operations: { generative: { style_transfer: { style_reference_image: url('reference.jpg') } } },
        output: { format: 'jpeg' },
      },
      check: sized(1024, 768),
    },
  ];
}

/**
 * Runs the suite: returns { rows, seconds, waitedMs }. `main`: the built service; `env`: the origin's environment;
 * `serviceEnv`: the service's (DATA_DIR in the run's folder, FETCH_ALLOW_HOSTS 127.0.0.1, a fresh admin key).
 */
export async function runSceneSuite(options, { main, folder, env, serviceEnv, log }) {
  const began = performance.now();
  const inputFolder = join(folder, 'input');
  mkdirSync(inputFolder, { recursive: true });
  await writeSceneInputs(inputFolder);
  const origin = await startNodeServer(join(SERVERS, 'origin-server.mjs'), [inputFolder], env);
  const url = (file) => `http://127.0.0.1:${origin.port}/${file}`;
  const quiet = quietBudget(options.quiet);
  const key = serviceEnv.ADMIN_API_KEY;
  try {
    const rows = [];
    for (const row of sceneRows(url)) {
      const request = (proc) =>
        row.kind === 'scene'
          ? postScene(proc.base, key, row.body, row.check)
          : postEdit(proc.base, key, row.body, row.check);
      const measured = await measureRow({
        name: row.name,
        start: () => startService(main, serviceEnv, options.serviceNodeArgs),
        request,
        runs: options.scene.runs,
        quiet,
        log,
        // the stages of one more (warm) request on the same process
        extra: async (proc) => (row.kind === 'scene' ? { stages: (await request(proc)).profiling } : undefined),
      });
      rows.push({ ...measured, target: row.target });
    }
    return { rows, seconds: (performance.now() - began) / 1000, waitedMs: quiet.waitedMs };
  } finally {
    await stop(origin.child);
  }
}

/** The suite's block of docs/benchmarks.md: the rows, their stages, and the targets. */
export function renderScene({ machine, options, rows, seconds, waitedMs }) {
  const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
  const lines = [
    `Scene suite, ${machine.date.slice(0, 10)}: ${machine.cpu}, ${machine.cores} cores, load average ${fixed(machine.loadAverage[0], 2)} at the start; ` +
      `${options.scene.runs} requests per row after a warm-up, ` +
      `each row on a fresh service process (local generative backend), ${fixed(seconds)} s` +
      (waitedMs > 0 ? ` (${fixed(waitedMs / 1000)} s of it waiting for a quiet machine)` : '') +
      '.',
    '',
    '| Row | p50 ms | p95 ms | n | peak RSS MiB | others (cores) | target |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const row of rows) {
    const target = row.target ? SCENE_TARGETS_MS[row.target] : undefined;
    const verdict =
      target === undefined || !Number.isFinite(row.p50)
        ? ''
        : `< ${target} ms: ${row.p50 < target ? 'met' : 'NOT met'}`;
    const cells = row.skipped
      ? [row.skipped, '', '', '', '']
      : row.failed
        ? [`failed: ${row.failed.replaceAll('|', '\\|')}`, '', '', '', '']
        : [fixed(row.p50), fixed(row.p95), String(row.n), fixed(row.peakMiB), fixed(row.othersCores, 2)];
    lines.push(`| ${row.name} | ${cells.join(' | ')} | ${verdict} |`);
  }
  const staged = rows.filter((row) => row.extra?.stages);
  if (staged.length > 0) {
    const stages = ['fetch', 'decode', 'cutout', 'place', 'generate', 'compose', 'encode', 'write', 'total'];
    lines.push(
      '',
      'Stages of one warm request of each scene row (`data.profiling`, ms; generate, compose and encode are the images together):',
      '',
    );
    lines.push(`| Row | ${stages.join(' | ')} |`, `| --- |${stages.map(() => ' ---: |').join('')}`);
    for (const row of staged)
      lines.push(`| ${row.name} | ${stages.map((s) => row.extra.stages[s] ?? '').join(' | ')} |`);
  }
  return lines.join('\n');
}
