import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { readVerifiedModelFile } from './model-file';
import { toInputTensor, toMask } from './segmentation/salient-map';
import type { DetectTextJob, OnnxJob, OnnxSession, SegmentJob } from './onnx-session';
import { dbBoxes, type DbBox } from './text/db-boxes';
import { detectorSize, toDetectorTensor } from './text/db-input';

/**
 * The worker thread of one ONNX model (model-runner.ts): it owns the ONNX Runtime session, because onnxruntime-node
 * runs `session.run` on the calling thread (its promise only defers the call with setImmediate): on the main
 * thread an inference would stop the event loop for its whole length. Pre- and post-processing run here too.
 */

type OnnxTask = { session: OnnxSession } & OnnxJob;

const sessions = new Map<string, Promise<ort.InferenceSession>>();

/**
 * The session of `spec`, made from the bytes hashed as they were read (never the path opened again). ONNX
 * Runtime reads a model's external data itself, from a folder: a private one made here, holding only the
 * declared external-data files, written from the bytes hashed likewise. An external-data entry that names
 * anything else is not found there, and the model does not load.
 */
async function create(spec: OnnxSession): Promise<ort.InferenceSession> {
  const bytes = await readVerifiedModelFile(spec.file);
  const externalData = mkdtempSync(join(tmpdir(), 'atelier-onnx-'));
  try {
    for (const file of spec.externalData) {
      writeFileSync(join(externalData, basename(file.path)), await readVerifiedModelFile(file), { mode: 0o600 });
    }
    return await ort.InferenceSession.create(bytes, {
      executionProviders: spec.executionProvider === 'cuda' ? ['cuda', 'cpu'] : ['cpu'],
      // one inference at a time per model; the graph is a chain, so operators do not run side by side
      executionMode: 'sequential',
      interOpNumThreads: 1,
      intraOpNumThreads: spec.threads,
      graphOptimizationLevel: 'all',
      // idle pool threads sleep instead of spinning: the cores are shared with sharp and the event loop
      extra: {
        session: { intra_op: { allow_spinning: '0' }, model_external_initializers_file_folder_path: externalData },
      },
    });
  } finally {
    rmSync(externalData, { recursive: true, force: true });
  }
}

function session(spec: OnnxSession): Promise<ort.InferenceSession> {
  let made = sessions.get(spec.file.path);
  if (!made) {
    made = create(spec);
    sessions.set(spec.file.path, made);
    made.catch(() => sessions.delete(spec.file.path));
  }
  return made;
}

async function segment(model: ort.InferenceSession, { rgb, profile }: SegmentJob): Promise<Uint8Array> {
  const { width, height } = profile.size;
  const input = new ort.Tensor('float32', toInputTensor(rgb, width * height, profile), [1, 3, height, width]);
  const outputs = await model.run({ [model.inputNames[0]]: input });
  const map = outputs[model.outputNames[profile.outputIndex]];
  if (map.data.length !== width * height) {
    throw new Error(`the model's output ${profile.outputIndex} has ${map.data.length} values, not ${width}x${height}`);
  }
  return toMask(map.data as Float32Array, profile);
}

async function detectText(model: ort.InferenceSession, job: DetectTextJob): Promise<DbBox[]> {
  const { rgb, width, height } = job;
  const size = detectorSize(width, height, job.maxSide);
  const input = new ort.Tensor('float32', toDetectorTensor(rgb, width, height, size), [1, 3, size.height, size.width]);
  const outputs = await model.run({ [model.inputNames[0]]: input });
  const map = outputs[model.outputNames[0]];
  if (map.data.length !== size.width * size.height) {
    throw new Error(`the model's output has ${map.data.length} values, not ${size.width}x${size.height}`);
  }
  return dbBoxes(map.data as Float32Array, size.width, size.height, { width, height });
}

/** Piscina's entry: runs one job on the task's model, loading its session on first use. */
export default async function run(task: OnnxTask): Promise<Uint8Array | DbBox[]> {
  const model = await session(task.session);
  switch (task.job) {
    case 'segment':
      return segment(model, task);
    case 'detect-text':
      return detectText(model, task);
  }
}
