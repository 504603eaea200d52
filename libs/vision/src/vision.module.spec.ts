import { Test } from '@nestjs/testing';
import { describe, expect, it } from 'vitest';
import { ConfigModule, loadConfig } from '@app/common';
import { MODEL_CAPABILITIES, ModelCapabilities } from '@app/editing';
import { FaceDetector, Segmenter, SuperResolver, TextDetector } from '@app/image-pipeline';
import { FaceApiDetector } from './faces/face-detector.model';
import { U2NetSegmenter } from './segmentation/segmentation.model';
import { EsrganSuperResolver } from './super-resolution/super-resolution.model';
import { PpOcrTextDetector } from './text/text-detection.model';
import { VisionCapabilities } from './vision-capabilities';
import { VisionModule } from './vision.module';

async function visionModule(env: Record<string, string> = {}) {
  const module = await Test.createTestingModule({
    imports: [ConfigModule.forRoot(loadConfig(env)), VisionModule],
  }).compile();
  await module.init();
  return module;
}

describe('VisionModule', () => {
  it('provides the ports: every shipped model installed (its files verified at start), none loaded yet', async () => {
    const module = await visionModule();
    const capabilities = module.get(ModelCapabilities);
    expect(capabilities).toBeInstanceOf(VisionCapabilities);
    expect(MODEL_CAPABILITIES.filter((capability) => capabilities.available(capability))).toEqual([
      'segmentation',
      'face-detection',
      'text-detection',
      'super-resolution',
    ]);
    expect(module.get(VisionCapabilities).models()).toEqual({
      segmentation: 'not_loaded',
      'face-detection': 'not_loaded',
      'text-detection': 'not_loaded',
      'super-resolution': 'not_loaded',
    });
    expect(module.get(Segmenter)).toBeInstanceOf(U2NetSegmenter);
    expect(module.get(FaceDetector)).toBeInstanceOf(FaceApiDetector);
    expect(module.get(TextDetector)).toBeInstanceOf(PpOcrTextDetector);
    expect(module.get(SuperResolver)).toBeInstanceOf(EsrganSuperResolver);
    await module.close();
  });

  it('reports segmentation not installed when its file fails verification, and still starts', async () => {
    const module = await visionModule({
      SEGMENTATION_MODEL: '/nonexistent/model.onnx',
      SEGMENTATION_MODEL_SHA256: '0'.repeat(64),
    });
    const capabilities = module.get(VisionCapabilities);
    expect(capabilities.available('segmentation')).toBe(false);
    expect(capabilities.models()).toEqual({
      segmentation: 'not_installed',
      'face-detection': 'not_loaded',
      'text-detection': 'not_loaded',
      'super-resolution': 'not_loaded',
    });
    await module.close();
  });
});
