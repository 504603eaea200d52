import { ServiceException } from '@app/common';
import type { EditRequest } from './edit-request.model';
import { PIPELINE_PHASES } from '@app/image-pipeline';
import { askedOperations, type EditOperation } from './operations';

/** What the operations that need a model ask of the service, one name per kind of model. */
export const MODEL_CAPABILITIES = [
  'segmentation',
  'face-detection',
  'text-detection',
  'super-resolution',
  'generative',
] as const;
export type ModelCapability = (typeof MODEL_CAPABILITIES)[number];

/**
 * The port through which an edit learns which models this process can run. The library that owns a model
 * runtime provides it (libs/vision: VisionModule), so that editing never imports a runtime and a model can move
 * to its own process without touching the planner.
 */
export abstract class ModelCapabilities {
  /** Whether a model of this kind is installed here, verified and ready to load. */
  abstract available(capability: ModelCapability): boolean;
}

/** A requested operation that needs a model: its field path, what the client asked for, and the model's kind. */
export interface ModelOperation {
  path: string;
  /** The value asked for where the path alone does not say it (an upscale model, a fit). */
  asked?: string;
  needs: ModelCapability;
}

/** Every operation of the request that needs a model, in the processing order (PIPELINE_PHASES). */
export function modelOperations(request: EditRequest): ModelOperation[] {
  const { resizing, registered } = request.operations;
  const found: ModelOperation[] = [];
  const phaseOf = ({ step }: EditOperation) => PIPELINE_PHASES.indexOf(step.phase);
  // `fit: outpaint` is the resize's own: in its place among the registered operations' phases
  let outpaint = resizing?.fit.type === 'outpaint';
  const addOutpaint = () => {
    if (outpaint) found.push({ path: 'operations.resizing.fit', asked: 'outpaint', needs: 'generative' });
    outpaint = false;
  };
  for (const { operation, value, path } of askedOperations(registered)) {
    if (phaseOf(operation) >= PIPELINE_PHASES.indexOf('resizing')) addOutpaint();
    for (const { capability, at, when, asked } of operation.needs ?? []) {
      if (when && !when(value)) continue;
      const what = asked?.(value);
      found.push({ path: at ? `${path}.${at}` : path, ...(what && { asked: what }), needs: capability });
    }
  }
  addOutpaint();
  return found;
}

/**
 * 501 `OPERATION_NOT_IMPLEMENTED` naming every requested operation whose model is not installed here. The code
 * stays that name: task items read it to fail for good instead of retrying (tasks/task-failure.ts).
 */
export function assertModelsInstalled(request: EditRequest, capabilities: ModelCapabilities): void {
  const missing = modelOperations(request).filter((operation) => !capabilities.available(operation.needs));
  if (missing.length === 0) return;
  const named = missing.map(({ path, asked, needs }) => `${path} (${asked ? `${asked}: ` : ''}${needs})`);
  throw new ServiceException(
    'OPERATION_NOT_IMPLEMENTED',
    `The models these operations need are not installed on this service: ${named.join(', ')}.`,
    Object.fromEntries(
      missing.map(({ path, needs }) => [path, [`needs a ${needs} model, which is not installed on this service`]]),
    ),
  );
}
