import { resolve } from 'node:path';
import type { Reader } from './config-reader';

/** Preprocessing profiles of salient-object segmentation models (libs/vision: segmentation-profiles.ts). */
export const SEGMENTATION_PROFILES = ['u2net', 'isnet', 'birefnet'] as const;
export type SegmentationProfileName = (typeof SEGMENTATION_PROFILES)[number];
/** Where ONNX Runtime runs the models: `cuda` needs the CUDA build of its binaries (docs/models.md). */
export const EXECUTION_PROVIDERS = ['cpu', 'cuda'] as const;
export type ExecutionProvider = (typeof EXECUTION_PROVIDERS)[number];

/** A file named by the operator, with the SHA-256 it must have before it is loaded. */
export interface ChecksummedFile {
  /** Absolute path. */
  path: string;
  /** 64 lowercase hex digits. */
  sha256: string;
}

/** An ONNX model file named by the operator, and the external-data file its weights are in, if any. */
export interface ModelFileOverride extends ChecksummedFile {
  /** `<name>_DATA`: the file the model's external-data entries name (`location`), by its file name. */
  externalData?: ChecksummedFile;
}

export interface VisionConfig {
  /** ONNX Runtime intra-op threads of each model (one inference at a time per model). */
  threads: number;
  /** Inferences that may wait per model before new ones are refused with 503 MODEL_BUSY. */
  queueLimit: number;
  executionProvider: ExecutionProvider;
  segmentation: {
    profile: SegmentationProfileName;
    /** Undefined: the U2-Netp file that ships with the service (docs/models.md). */
    file?: ModelFileOverride;
  };
  faces: {
    /** Faces the detector scores below this (0..1) are not reported. */
    minScore: number;
  };
  textDetection: {
    /** The longest side at which text is detected (PP-OCRv4 detection; docs/models.md, "Text regions"). */
    maxSide: number;
    /** Undefined: the PP-OCRv4 detection file that ships with the service (docs/models.md). */
    file?: ModelFileOverride;
  };
  superResolution: {
    /** Side of the square tiles the super-resolution model enlarges one at a time, in input pixels. */
    tile: number;
    /** Largest input, in pixels, that the modes preferring the medium network run on it; larger ones run slim. */
    mediumMaxPixels: number;
  };
}

/** The vision settings (docs/configuration.md, "Models"; docs/models.md). */
export function readVision(read: Reader): VisionConfig {
  const segmentationFile = readModelFile(read, 'SEGMENTATION_MODEL');
  const profile = read.oneOf('SEGMENTATION_PROFILE', SEGMENTATION_PROFILES, 'u2net');
  if (profile !== 'u2net' && read.string('SEGMENTATION_MODEL') === undefined) {
    read.problem('SEGMENTATION_PROFILE', `"${profile}" needs SEGMENTATION_MODEL: the shipped model is U2-Netp`);
  }
  return {
    // One thread: the process edits EDIT_CONCURRENCY images with sharp beside the model (docs/models.md).
    threads: read.integer('VISION_THREADS', 1, 1, 64),
    queueLimit: read.integer('VISION_QUEUE_LIMIT', 8, 0, 10_000),
    executionProvider: read.oneOf('VISION_EXECUTION_PROVIDER', EXECUTION_PROVIDERS, 'cpu'),
    segmentation: { profile, file: segmentationFile },
    faces: { minScore: read.integer('FACE_MIN_SCORE', 50, 1, 99) / 100 },
    textDetection: {
      maxSide: read.integer('TEXT_DETECTION_MAX_SIDE', 960, 320, 4096),
      file: readModelFile(read, 'TEXT_DETECTION_MODEL'),
    },
    // 192 px: the model's working memory stays near 100 MB whatever the image's size (docs/models.md)
    superResolution: {
      tile: read.integer('SUPER_RESOLUTION_TILE', 192, 64, 1024),
      // medium takes 3-5x slim's time: 30 s for a 0.25 MP 2x here (docs/models.md), too long for one request
      mediumMaxPixels: read.integer('SUPER_RESOLUTION_MEDIUM_MAX_PIXELS', 100_000, 0, 1_000_000_000),
    },
  };
}

/** `<name>` (a path) with `<name>_SHA256`, and its optional external data `<name>_DATA` with `<name>_DATA_SHA256`. */
function readModelFile(read: Reader, name: string): ModelFileOverride | undefined {
  const file = readChecksummedFile(read, name);
  const externalData = readChecksummedFile(read, `${name}_DATA`);
  if (externalData && !file) read.problem(`${name}_DATA`, `needs ${name}: it is the external data of that model`);
  return file && { ...file, externalData };
}

/** `<name>` (a path) with `<name>_SHA256` (its checksum): both or neither. */
function readChecksummedFile(read: Reader, name: string): ChecksummedFile | undefined {
  const path = read.string(name);
  const sha256 = read.string(`${name}_SHA256`)?.toLowerCase();
  if (sha256 !== undefined && !/^[0-9a-f]{64}$/.test(sha256)) {
    read.problem(`${name}_SHA256`, `must be 64 hex digits (the SHA-256 of ${name})`);
  }
  if ((path === undefined) !== (sha256 === undefined)) {
    read.problem(`${name}_SHA256`, `${name} and ${name}_SHA256 go together`);
  }
  return path && sha256 ? { path: resolve(path), sha256 } : undefined;
}
