import { AppConfig } from '@app/common';
import { FaceDetector, type DetectedFace, type RawImage } from '@app/image-pipeline';
import { shippedFilePath, type ModelFile } from '../model-file';
import { ModelRunner } from '../model-runner';
import { FACE_WORKER, type FaceJob, type FaceSession, type TfjsWeights } from './face-session';

/**
 * The face models that ship with the service: the files of `@vladmandic/face-api@1.7.15` (pinned in package.json)
 * in its model/ folder, each with its SHA-256 (docs/models.md, "Faces"). SSD MobileNet V1 finds the faces, the
 * full 68-point network places the landmarks: chosen by measurement over the tiny detector and tiny landmarks.
 */
export const SHIPPED_FACE_MODELS = {
  detector: {
    manifest: {
      file: 'model/ssd_mobilenetv1_model-weights_manifest.json',
      sha256: '888f744dffbc84f5f060d1f8427d9742341943a2dfaaf9205d10029b7e7a2955',
    },
    weights: {
      file: 'model/ssd_mobilenetv1_model.bin',
      sha256: '2835640602d53718aa6ae9a42896327eaa21beefed056c218d32ca7d79e1e2f8',
    },
  },
  landmarks: {
    manifest: {
      file: 'model/face_landmark_68_model-weights_manifest.json',
      sha256: 'ca4886639f86e99b39fed0c155f81b63317225773bd9616716e887b0153389c9',
    },
    weights: {
      file: 'model/face_landmark_68_model.bin',
      sha256: '4611ef65c87d836d03d684b30eec4d195d8b219fa1dd58fc58945831c6b9299b',
    },
  },
} as const;

/**
 * The longer side the detector gets. SSD MobileNet V1 itself works at 512 x 512 (face-api pads and scales its
 * input); the landmark network crops each face from the image it is given, so twice that keeps its 112-px input
 * sharp for faces down to about 5% of the image side.
 */
export const FACE_INPUT_SIDE = 1024;

function shipped({ file, sha256 }: { file: string; sha256: string }): ModelFile {
  return { path: shippedFilePath('@vladmandic/face-api', file), sha256 };
}

function network(files: { manifest: ModelFile; weights: ModelFile }): TfjsWeights {
  return { manifest: files.manifest, weights: files.weights };
}

/** The files of the two networks, each with the SHA-256 it must have. */
export interface FaceModelFiles {
  detector: Record<'manifest' | 'weights', ModelFile>;
  landmarks: Record<'manifest' | 'weights', ModelFile>;
}

/** The four shipped files (two manifests, two weights files) with their pinned checksums. */
export function faceModelFiles(): FaceModelFiles {
  const { detector, landmarks } = SHIPPED_FACE_MODELS;
  return {
    detector: { manifest: shipped(detector.manifest), weights: shipped(detector.weights) },
    landmarks: { manifest: shipped(landmarks.manifest), weights: shipped(landmarks.weights) },
  };
}

/** Faces with 68 landmarks on TF.js WASM (face-api), the pipeline's FaceDetector port. */
export class FaceApiDetector extends FaceDetector {
  readonly inputSide = FACE_INPUT_SIDE;

  constructor(readonly runner: ModelRunner<FaceJob>) {
    super();
  }

  /** `files`: the shipped ones unless a caller (a spec) names others. */
  static fromConfig(config: AppConfig, files: FaceModelFiles = faceModelFiles()): FaceApiDetector {
    const session: FaceSession = {
      detector: network(files.detector),
      landmarks: network(files.landmarks),
      threads: config.vision.threads,
      minScore: config.vision.faces.minScore,
    };
    const runner = new ModelRunner<FaceJob>({
      name: 'face-detection',
      files: [files.detector.manifest, files.detector.weights, files.landmarks.manifest, files.landmarks.weights],
      worker: FACE_WORKER,
      session,
      queueLimit: config.vision.queueLimit,
      warmUp: () => ({ job: 'warm-up' }),
    });
    return new FaceApiDetector(runner);
  }

  async detect(rgb: RawImage): Promise<DetectedFace[]> {
    if (rgb.channels !== 3 || Math.max(rgb.width, rgb.height) > this.inputSide) {
      throw new RangeError(
        `face detection needs 3-channel pixels at most ${this.inputSide} px on the longer side, got ${rgb.channels}-channel ${rgb.width}x${rgb.height}`,
      );
    }
    return this.runner.run<DetectedFace[]>({
      job: 'detect',
      rgb: rgb.data,
      width: rgb.width,
      height: rgb.height,
    });
  }
}
