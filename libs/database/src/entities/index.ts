import { AccountEntity } from './account.entity';
import { ApiKeyEntity } from './api-key.entity';
import { EditTaskItemEntity } from './edit-task-item.entity';
import { EditTaskEntity } from './edit-task.entity';
import { StorageEntity } from './storage.entity';
import { WebhookSecretEntity } from './webhook-secret.entity';

export * from './account.entity';
export * from './api-key.entity';
export * from './edit-task.entity';
export * from './edit-task-item.entity';
export * from './storage.entity';
export * from './webhook-secret.entity';

/** Every entity the service persists. */
export const ENTITIES = [
  AccountEntity,
  ApiKeyEntity,
  StorageEntity,
  EditTaskEntity,
  EditTaskItemEntity,
  WebhookSecretEntity,
];
