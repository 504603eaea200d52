import type { ModelWorker } from '../model-runner';
import type { EsrganName, EsrganNetwork } from './esrgan-models';

/** The worker thread of the super-resolution networks (super-resolution.worker.ts): TF.js on WASM. */
export const SUPER_RESOLUTION_WORKER: ModelWorker = { dir: __dirname, name: 'super-resolution.worker' };

/** How the worker makes the networks: their verified files, and TF.js's threads (VISION_THREADS). */
export interface SuperResolutionSession {
  threads: number;
  networks: Record<EsrganName, EsrganNetwork>;
}

/** Enlarges 8-bit RGB (`rgb` is moved to the worker) with one network, in tiles of `tile` input pixels. */
export interface UpscaleJob {
  job: 'upscale';
  network: EsrganName;
  rgb: Uint8Array;
  width: number;
  height: number;
  tile: number;
}

/** Loads every network and runs each once on a small image (the first runs are several times slower). */
export interface WarmUpJob {
  job: 'warm-up';
}

export type SuperResolutionJob = UpscaleJob | WarmUpJob;
