import { Test } from '@nestjs/testing';
import { describe, expect, it } from 'vitest';
import { MODEL_CAPABILITIES, ModelCapabilities } from '@app/editing';
import { VisionCapabilities } from './vision-capabilities';
import { VisionModule } from './vision.module';

describe('VisionModule', () => {
  it('provides the model capabilities port, with no model installed yet', async () => {
    const module = await Test.createTestingModule({ imports: [VisionModule] }).compile();
    const capabilities = module.get(ModelCapabilities);
    expect(capabilities).toBeInstanceOf(VisionCapabilities);
    expect(MODEL_CAPABILITIES.filter((capability) => capabilities.available(capability))).toEqual([]);
    await module.close();
  });
});
