import type { DetectedFace } from '@app/image-pipeline';
import type { ModelFile } from '../model-file';
import type { ModelWorker } from '../model-runner';

/** The worker thread of the face models (face.worker.ts): TF.js on WASM, face-api's networks. */
export const FACE_WORKER: ModelWorker = { dir: __dirname, name: 'face.worker' };

/**
 * One TF.js network on disk: its weights manifest and the one weights file the manifest names, each with its
 * SHA-256 (the worker loads the bytes it hashed).
 */
export interface TfjsWeights {
  manifest: ModelFile;
  weights: ModelFile;
}

/** How the worker makes the models: the files (each verified by the runner first), threads, the score cut. */
export interface FaceSession {
  detector: TfjsWeights;
  landmarks: TfjsWeights;
  threads: number;
  /** Faces the detector scores below this (0..1) are not reported. */
  minScore: number;
}

/** Faces with their 68 landmarks in 8-bit RGB pixels (`width` x `height`, 3 channels). */
export interface DetectFacesJob {
  job: 'detect';
  rgb: Uint8Array;
  width: number;
  height: number;
}

/** The first inference of both networks (the detector on a blank image finds nothing, so landmarks run apart). */
export interface WarmUpFacesJob {
  job: 'warm-up';
}

export type FaceJob = DetectFacesJob | WarmUpFacesJob;
export type FaceJobResult = DetectedFace[];
