import { basename } from 'node:path';
import { Piscina } from 'piscina';
import type * as tfjs from '@tensorflow/tfjs';
import { readVerifiedModelFile } from '../model-file';
import { tfjsOnWasm } from '../tfjs-runtime';
import type { EsrganNetwork } from './esrgan-models';
import type { SuperResolutionJob, SuperResolutionSession, UpscaleJob } from './super-resolution-job';
import { enlargeInTiles } from './tiles';

/**
 * The worker thread of the super-resolution networks (model-runner.ts): TF.js on its WASM backend runs kernels on
 * the calling thread, so here, never on the event loop. Networks load from the files the runner verified (an
 * IOHandler reading them from disk: nothing is fetched), once each, and enlarge the image tile by tile.
 *
 * Scaling: the RDN networks of UpscalerJS take and give RGB in 0..255 (its model definition: `inputRange` and
 * `outputRange` [0, 255] for the `rdn` architecture); their layers are all built into TF.js (Conv2D, Add,
 * Concatenate, Activation, UpSampling2D), so no custom layer is registered.
 */

type Task = { session: SuperResolutionSession } & SuperResolutionJob;

const networks = new Map<string, Promise<tfjs.LayersModel>>();

/**
 * The layers model of `network`, from the bytes of its two files hashed as they were read; its manifest must
 * name no other file.
 */
async function load(tf: typeof tfjs, network: EsrganNetwork): Promise<tfjs.LayersModel> {
  const json = JSON.parse((await readVerifiedModelFile(network.graph)).toString('utf8')) as tfjs.io.ModelJSON;
  const paths = json.weightsManifest.flatMap((group) => group.paths);
  if (paths.length !== 1 || paths[0] !== basename(network.weights.path)) {
    const named = paths.join(', ');
    throw new Error(`${network.graph.path} names weights ${named}, not the verified ${network.weights.path}`);
  }
  const weights = await readVerifiedModelFile(network.weights);
  const handler: tfjs.io.IOHandler = {
    load: () =>
      Promise.resolve({
        modelTopology: json.modelTopology,
        weightSpecs: json.weightsManifest.flatMap((group) => group.weights),
        weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
        format: json.format,
        generatedBy: json.generatedBy,
        convertedBy: json.convertedBy,
      }),
  };
  return tf.loadLayersModel(handler);
}

function network(tf: typeof tfjs, spec: EsrganNetwork): Promise<tfjs.LayersModel> {
  let made = networks.get(spec.graph.path);
  if (!made) {
    made = load(tf, spec);
    networks.set(spec.graph.path, made);
    made.catch(() => networks.delete(spec.graph.path));
  }
  return made;
}

async function upscale(tf: typeof tfjs, session: SuperResolutionSession, job: UpscaleJob): Promise<Uint8Array> {
  const spec = session.networks[job.network];
  const model = await network(tf, spec);
  return enlargeInTiles(
    { rgb: job.rgb, width: job.width, height: job.height, scale: spec.scale, tile: job.tile, margin: spec.margin },
    async (rgb, width, height) => {
      const output = tf.tidy(() => model.predict(tf.tensor4d(rgb, [1, height, width, 3])) as tfjs.Tensor);
      try {
        return (await output.data()) as Float32Array;
      } finally {
        output.dispose();
      }
    },
  );
}

/** Piscina's entry: warms every network up, or enlarges one image; the result's pixels move back without a copy. */
export default async function run(task: Task): Promise<Uint8Array | undefined> {
  const tf = await tfjsOnWasm(task.session.threads);
  if (task.job === 'warm-up') {
    for (const spec of Object.values(task.session.networks)) {
      const model = await network(tf, spec);
      const output = tf.tidy(() => model.predict(tf.zeros([1, 24, 24, 3])) as tfjs.Tensor);
      await output.data();
      output.dispose();
    }
    return undefined;
  }
  const rgb = await upscale(tf, task.session, task);
  return Piscina.move(rgb) as Uint8Array;
}
