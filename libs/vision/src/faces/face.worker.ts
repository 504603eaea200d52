import * as faceapi from '@vladmandic/face-api/dist/face-api.node-wasm.js';
import type { DetectedFace } from '@app/image-pipeline';
import { readVerifiedModelFile } from '../model-file';
import { tfjsOnWasm } from '../tfjs-runtime';
import type { DetectFacesJob, FaceJob, FaceSession, TfjsWeights } from './face-session';

/**
 * The worker thread of the face models (model-runner.ts): face-api's SSD MobileNet V1 detector and its 68-point
 * landmark network on TF.js's WASM backend, whose kernels run on the calling thread. The weights are read from
 * the bytes of the files hashed as they were read (no fetch, no other path): each manifest's one weights file,
 * decoded by TF.js.
 */

type FaceTask = { session: FaceSession } & FaceJob;
type Tf = Awaited<ReturnType<typeof tfjsOnWasm>>;

let loaded: Promise<Tf> | undefined;

async function loadNet(tf: Tf, net: { loadFromWeightMap(map: unknown): void }, files: TfjsWeights): Promise<void> {
  const text = (await readVerifiedModelFile(files.manifest)).toString('utf8');
  const manifest = JSON.parse(text) as { paths: string[]; weights: unknown[] }[];
  const paths = manifest.flatMap((group) => group.paths);
  if (paths.length !== 1) throw new Error(`${files.manifest.path} names ${paths.length} weights files, expected one`);
  const bytes = await readVerifiedModelFile(files.weights);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const specs = manifest.flatMap((group) => group.weights) as Parameters<Tf['io']['decodeWeights']>[1];
  net.loadFromWeightMap(tf.io.decodeWeights(buffer, specs));
}

function models(session: FaceSession): Promise<Tf> {
  loaded ??= (async () => {
    const tf = await tfjsOnWasm(session.threads);
    await loadNet(tf, faceapi.nets.ssdMobilenetv1, session.detector);
    await loadNet(tf, faceapi.nets.faceLandmark68Net, session.landmarks);
    return tf;
  })();
  loaded.catch(() => (loaded = undefined));
  return loaded;
}

async function detect(tf: Tf, session: FaceSession, { rgb, width, height }: DetectFacesJob): Promise<DetectedFace[]> {
  if (rgb.length !== width * height * 3) throw new RangeError(`${rgb.length} bytes are not ${width}x${height} RGB`);
  const input = tf.tensor3d(rgb, [height, width, 3], 'int32');
  try {
    const options = new faceapi.SsdMobilenetv1Options({ minConfidence: session.minScore, maxResults: 100 });
    const found = await faceapi.detectAllFaces(input as never, options).withFaceLandmarks();
    return found
      .map(({ detection, landmarks }) => ({
        box: { left: detection.box.x, top: detection.box.y, width: detection.box.width, height: detection.box.height },
        score: detection.score,
        landmarks: landmarks.positions.map(({ x, y }) => ({ x, y })),
      }))
      .sort((a, b) => b.score - a.score);
  } finally {
    input.dispose();
  }
}

/** Both networks' first run, on grey pixels: the detector at its input size, the landmarks on a face-sized crop. */
async function warmUp(tf: Tf): Promise<DetectedFace[]> {
  const grey = tf.fill([512, 512, 3], 128, 'int32') as never;
  const crop = tf.fill([112, 112, 3], 128, 'int32') as never;
  try {
    await faceapi.detectAllFaces(grey, new faceapi.SsdMobilenetv1Options());
    const landmarks = await faceapi.nets.faceLandmark68Net.detectLandmarks(crop);
    if ((Array.isArray(landmarks) ? landmarks[0] : landmarks).positions.length !== 68) {
      throw new Error('the landmark network did not answer 68 points');
    }
    return [];
  } finally {
    tf.dispose([grey, crop]);
  }
}

/** Piscina's entry: runs one job, loading the networks on first use. */
export default async function run(task: FaceTask): Promise<DetectedFace[]> {
  const tf = await models(task.session);
  return task.job === 'warm-up' ? warmUp(tf) : detect(tf, task.session, task);
}
