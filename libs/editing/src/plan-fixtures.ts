import type { EditPlan, ImageProbe } from '@app/image-pipeline';
import { parseEditRequest } from './edit-request';
import { planEdit, type PlanContext } from './edit-planner';
import { ModelCapabilities, MODEL_CAPABILITIES, type ModelCapability } from './model-capabilities';

/*
 * What the planner's specs share (the planner's own table, background, privacy, restorations): models installed as
 * told, an input's header, and a request body planned as a client sends it. Nothing here runs a model.
 */

/** The kinds of model this process is told it runs (all of them by default). */
export class Installed extends ModelCapabilities {
  constructor(private readonly kinds: readonly ModelCapability[] = MODEL_CAPABILITIES) {
    super();
  }
  available(capability: ModelCapability): boolean {
    return this.kinds.includes(capability);
  }
}

/** The header of an input of this format and display size. */
export function probeOf(format: ImageProbe['format'], width: number, height: number, hasAlpha = false): ImageProbe {
  return {
    format,
    width,
    height,
    orientation: 1,
    displayWidth: width,
    displayHeight: height,
    channels: hasAlpha ? 4 : 3,
    hasAlpha,
    space: 'srgb',
  } as ImageProbe;
}

/** A body as a client sends it (an `input` URL added), parsed and planned for `input`. */
export function planBody(body: object, input: ImageProbe, context: Partial<PlanContext> = {}): EditPlan {
  const request = parseEditRequest({ input: 'https://example.com/a.jpg', ...body }, { input: 'required' });
  return planEdit(request, input, { maxPixels: 50_000_000, capabilities: new Installed(), ...context });
}
