import type { ExecutionProvider } from '@app/common';
import type { ModelFile } from './model-file';
import type { ModelWorker } from './model-runner';
import type { SegmentationProfile } from './segmentation/segmentation-profiles';

/** The worker thread of every ONNX Runtime model (onnx.worker.ts): one per model, each with its own session. */
export const ONNX_WORKER: ModelWorker = { dir: __dirname, name: 'onnx.worker' };

/**
 * How the worker makes an ONNX Runtime session: the file, loaded from the bytes the worker hashed
 * (readVerifiedModelFile), threads and provider.
 */
export interface OnnxSession {
  file: ModelFile;
  /** The files the model's external-data entries name (by file name), loaded from the bytes hashed likewise. */
  externalData: readonly ModelFile[];
  threads: number;
  executionProvider: ExecutionProvider;
}

/** Salient-object segmentation of 8-bit RGB at the profile's size; answers the 0..255 mask. */
export interface SegmentJob {
  job: 'segment';
  rgb: Uint8Array;
  profile: SegmentationProfile;
}

/**
 * Text detection (a DB detector such as PP-OCRv4's) of 8-bit RGB of any size: the worker scales it to at most
 * `maxSide` in multiples of 32 and answers the text boxes in `rgb`'s pixels (text/db-boxes.ts: DbBox[]).
 */
export interface DetectTextJob {
  job: 'detect-text';
  rgb: Uint8Array;
  width: number;
  height: number;
  maxSide: number;
}

/** The jobs an ONNX model's worker runs; each model's class sends only its own kind. */
export type OnnxJob = SegmentJob | DetectTextJob;

/** The files an ONNX model loads: the graph and, when the operator named one, its external data. */
export function onnxFiles(file: ModelFile & { externalData?: ModelFile }): {
  file: ModelFile;
  externalData: ModelFile[];
} {
  return { file: { path: file.path, sha256: file.sha256 }, externalData: file.externalData ? [file.externalData] : [] };
}
