import { Injectable } from '@nestjs/common';
import { ModelCapabilities, type ModelCapability } from '@app/editing';

/**
 * Which vision models this process has installed: none yet, so every operation that needs one answers 501 "not
 * installed on this service". Each model runner (segmentation, faces, text regions, super-resolution) adds its
 * capability here once its weights ship and verify. `generative` is not a vision model: libs/generative will
 * answer for it when it lands.
 */
@Injectable()
export class VisionCapabilities extends ModelCapabilities {
  private readonly installed: ReadonlySet<ModelCapability> = new Set();

  available(capability: ModelCapability): boolean {
    return this.installed.has(capability);
  }
}
