// The vision suite (bench/README.md, "The vision suite"): background removal through the service at 1 MP and
// 12 MP against @imgly/background-removal-node's own removeBackground (lib/imgly-vendor.mjs,
// servers/imgly-server.mjs) on the same images, both methods' IoU on the segmentation composite set, then 2x
// upscale per mode, face detection and plate detection through the service. Every row runs on a fresh process
// (lib/vision-rows.mjs), so each peak RSS is that row's.
import { existsSync, mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { ensureImgly } from './imgly-vendor.mjs';
import { alphaMetrics, alphaOf, maskIoU } from '../../test/fixtures/composites/mask-iou.mjs';
import { startNodeServer, startService, stop } from './processes.mjs';
import { writeVisionInputs } from './vision-fixtures.mjs';
import { fetchResult, measureRow, postEdit, quietBudget, sized } from './vision-rows.mjs';

const SERVERS = join(import.meta.dirname, '..', 'servers');
const REQUEST_TIMEOUT_MS = 300_000;
/** The upscale modes of the contract's `restorations.upscale`. */
export const UPSCALE_MODES = ['photo', 'smart_enhance', 'digital_art', 'faces', 'smart_resize'];
const REMOVE = { background: { remove: true, color: 'transparent' } };

/** The alpha of a PNG answer, checked to be `width` x `height`. */
async function alphaOfPng(png, width, height) {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== width || info.height !== height) {
    throw new Error(`expected a ${width}x${height} result, got ${info.width}x${info.height}`);
  }
  return alphaOf(data);
}

/** Each composite's measures (mask-iou.mjs alphaMetrics: IoU, SAD, MSE, Grad, haze), `alphaFor(item)` giving the method's alpha at 640x640. */
async function setIoU(composites, alphaFor, log, label) {
  const scores = [];
  for (const item of composites) {
    const metrics = alphaMetrics(await alphaFor(item), item.truth, 640, 640);
    scores.push({ name: item.name, object: item.object, group: item.group, ...metrics });
  }
  const mean = scores.reduce((sum, s) => sum + s.iou, 0) / scores.length;
  log(`${label}: mean IoU ${mean.toFixed(4)} on ${scores.length} composites`);
  return scores;
}

/** Our method: background.remove through the service, PNG out; the 1 MP row also runs the composite set. */
function serviceRemoval(context, scene, withSet) {
  const { url, startOurs, key } = context;
  const edit = (base, input, width, height) =>
    postEdit(base, key, { input: url(input), operations: REMOVE, output: { format: 'png' } }, sized(width, height));
  return {
    name: `background removal ${scene.name}, service`,
    start: startOurs,
    request: (proc) => edit(proc.base, scene.file, scene.width, scene.height),
    extra: async (proc, first) => {
      const png = await fetchResult(proc.base, first.output.tmp_url);
      const iou = maskIoU(await alphaOfPng(png, scene.width, scene.height), scene.truth);
      if (!withSet) return { iou };
      const alphaFor = async (item) => {
        const data = await edit(proc.base, item.file, 640, 640);
        return alphaOfPng(await fetchResult(proc.base, data.output.tmp_url), 640, 640);
      };
      return { iou, set: await setIoU(context.composites, alphaFor, context.log, 'service') };
    },
  };
}

/**
 * The reference: imgly's removeBackground in its own process. Its answers on the composite set are kept in
 * bench/.cache/vision (by its version, model and the input's SHA-256): they cannot change, and they cost a
 * minute or more each on 2 cores.
 */
function imglyRemoval(context, scene, withSet) {
  const { url, reference, env, cacheRoot } = context;
  const cache = join(cacheRoot, 'vision', `imgly-${reference.version}-${reference.model}`);
  const remove = async (port, input) => {
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      body: JSON.stringify({ input: url(input) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200)
      throw new Error(`imgly answered ${response.status}: ${bytes.toString().slice(0, 400)}`);
    return bytes;
  };
  return {
    name: `background removal ${scene.name}, imgly`,
    start: () => startNodeServer(join(SERVERS, 'imgly-server.mjs'), [reference.folder, reference.model], env),
    request: (proc) => remove(proc.port, scene.file),
    extra: async (proc, first) => {
      const iou = maskIoU(await alphaOfPng(first, scene.width, scene.height), scene.truth);
      if (!withSet) return { iou };
      mkdirSync(cache, { recursive: true });
      let cached = 0;
      const alphaFor = async (item) => {
        const path = join(cache, `${item.sha256}.png`);
        if (existsSync(path)) {
          cached++;
          return new Uint8Array(await sharp(readFileSync(path)).extractChannel(0).raw().toBuffer());
        }
        const alpha = await alphaOfPng(await remove(proc.port, item.file), 640, 640);
        writeFileSync(
          path,
          await sharp(alpha, { raw: { width: 640, height: 640, channels: 1 } })
            .png()
            .toBuffer(),
        );
        return alpha;
      };
      const set = await setIoU(context.composites, alphaFor, context.log, 'imgly');
      return { iou, set, cached };
    },
  };
}

/** The other vision operations through the service: (name, request body, input, check of the output). */
function otherRows({ upscale, faces, plate }) {
  const within = (input) => (output) => {
    if (!(output?.width > 0 && output.width <= input.width && output.height > 0 && output.height <= input.height)) {
      throw new Error(`expected an output within ${input.width}x${input.height}, got ${JSON.stringify(output)}`);
    }
  };
  return [
    ...UPSCALE_MODES.map((mode) => ({
      name: `2x upscale, ${mode}`,
      input: upscale,
      // upscale with no resizing: the contract enlarges 2x
      operations: { restorations: { upscale: mode } },
      check: sized(upscale.width * 2, upscale.height * 2),
    })),
    {
      name: 'face detection (privacy.identity_crop)',
      input: faces,
      operations: { privacy: { identity_crop: true } },
      check: within(faces),
    },
    {
      name: 'plate detection (privacy.blur_car_plate)',
      input: plate,
      operations: { privacy: { blur_car_plate: true } },
      check: sized(plate.width, plate.height),
    },
  ];
}

/** A row of otherRows through the service; its note: the output's size and any notice codes. */
function serviceRow(context, row) {
  const body = { input: context.url(row.input.file), operations: row.operations, output: { format: 'jpeg' } };
  return {
    name: row.name,
    input: row.input,
    start: context.startOurs,
    request: (proc) => postEdit(proc.base, context.key, body, row.check),
    extra: async (_proc, first) => ({
      note: [`${first.output.width}x${first.output.height}`, ...(first.notices ?? []).map((n) => n.code)].join(', '),
    }),
  };
}

/**
 * Runs the suite: returns { inputs, reference | referenceError, removal: rows, others: rows, seconds, waitedMs }.
 * `main`: the built service; `env`: the origin's and imgly's environment; `serviceEnv`: the service's (DATA_DIR in the run's folder,
 * FETCH_ALLOW_HOSTS 127.0.0.1, a fresh admin key).
 */
export async function runVisionSuite(options, { main, folder, env, serviceEnv, cacheRoot, log }) {
  const began = performance.now();
  const { runs, bigRuns, composites: limit, imgly, before } = options.vision;
  let reference;
  let referenceError;
  if (imgly) {
    try {
      reference = ensureImgly(log);
    } catch (error) {
      referenceError = error.message;
      log(`the reference cannot run: ${referenceError}`);
    }
  }
  const inputFolder = join(folder, 'input');
  mkdirSync(inputFolder, { recursive: true });
  log('making the vision inputs ...');
  const inputs = await writeVisionInputs(inputFolder, { composites: limit });
  const origin = await startNodeServer(join(SERVERS, 'origin-server.mjs'), [inputFolder], env);
  const quiet = quietBudget(options.quiet);
  const context = {
    url: (file) => `http://127.0.0.1:${origin.port}/${file}`,
    key: serviceEnv.ADMIN_API_KEY,
    startOurs: () => startService(main, serviceEnv, options.serviceNodeArgs),
    composites: inputs.composites,
    reference,
    env,
    cacheRoot,
    log,
  };
  const common = { quiet, log };
  try {
    const removal = [];
    for (const [i, scene] of inputs.removal.entries()) {
      const rowRuns = i === 0 ? runs : bigRuns;
      removal.push({
        scene,
        method: 'service',
        ...(await measureRow({ ...serviceRemoval(context, scene, i === 0), runs: rowRuns, ...common })),
      });
      if (before) {
        const previous = { ...context, startOurs: () => startService(before, serviceEnv, options.serviceNodeArgs) };
        const row = serviceRemoval(previous, scene, false);
        removal.push({
          scene,
          method: 'before',
          ...(await measureRow({ ...row, name: `background removal ${scene.name}, before`, runs: rowRuns, ...common })),
        });
      }
      if (!reference) continue;
      removal.push({
        scene,
        method: 'imgly',
        ...(await measureRow({ ...imglyRemoval(context, scene, i === 0), runs: rowRuns, ...common })),
      });
    }
    const others = [];
    for (const row of otherRows(inputs)) {
      others.push({ input: row.input, ...(await measureRow({ ...serviceRow(context, row), runs, ...common })) });
    }
    const seconds = (performance.now() - began) / 1000;
    return { inputs, reference, referenceError, removal, others, seconds, waitedMs: quiet.waitedMs };
  } finally {
    await stop(origin.child);
  }
}
