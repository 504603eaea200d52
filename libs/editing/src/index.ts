export * from './queue.constants';
export * from './editing.module';
export * from './edit-executor';
export { ResultWriter } from './results/result-writer';
export { EditAdmission, InputHold } from './admission/edit-admission';
export * from './edit-planner';
export * from './model-capabilities';
export * from './image-info';
export * from './edit-request.model';
export * from './edit-request';
export * from './dto/edit-request.dto';
export * from './dto/operations.dto';
export * from './dto/resizing.dto';
export * from './operations/background/background.dto';
export * from './dto/output.dto';
export * from './dto/format-options.dto';
export {
  INPUT_MAX_LENGTH,
  LOCATION_MAX_LENGTH,
  MAX_DIMENSION_PX,
  MAX_SIDE_PERCENT,
  MAX_SIDE_PX,
  MAX_SIZE_PERCENT,
} from './dto/edit-values';
export * from './tasks/tasks.module';
export * from './tasks/task-service';
export * from './tasks/task-view';
export * from './tasks/task-body';
export * from './tasks/task-queue';
export * from './tasks/task-worker';
export * from './tasks/task-request';
export * from './tasks/kinds';
export * from './webhooks/webhooks.module';
export * from './webhooks/webhook-secrets';
export { SHOWN_SECRET_LENGTH } from './webhooks/webhook-signature';
export * from './notices';
export * from './inputs/source-loader';
export * from './scene/scene-request';
export * from './scene/scene-request.dto';
export * from './scene/scene-planner';
export * from './scene/scene-executor';
export * from './operations';
