import { registerEditOperation } from './operation-registry';
import { adjustmentsOperation } from './adjustments/adjustments.operation';
import { paddingOperation } from './padding/padding.operation';
import { privacyOperation } from './privacy/privacy.operation';
import { restorationsOperation } from './restorations/restorations.operation';
import { backgroundOperation } from './background/background.operation';
import { generativeOperation } from './generative/generative.operation';
import { watermarkOperation } from './watermark/watermark.operation';

/**
 * THE registered edit operations (docs/extending.md, "An edit operation"): each one folder beside this file,
 * listed here once. Registering adds its member to the request's schema and the OpenAPI document, and its step to
 * the pipeline, so this runs when the library loads, before any request is read or any document built.
 */
registerEditOperation(privacyOperation);
registerEditOperation(restorationsOperation);
registerEditOperation(backgroundOperation);
registerEditOperation(paddingOperation);
registerEditOperation(adjustmentsOperation);
registerEditOperation(generativeOperation);
registerEditOperation(watermarkOperation);

export { askedOperations, editOperations } from './operation-registry';
export type { EditOperation, OperationPlanContext } from './edit-operation';
