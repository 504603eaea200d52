import { AccountsAndKeys1763800000000 } from './1763800000000-accounts-and-keys';
import { Storages1763900000000 } from './1763900000000-storages';
import { EditTasks1764000000000 } from './1764000000000-edit-tasks';
import { BootstrapKeyMarker1764200000000 } from './1764200000000-bootstrap-key-marker';
import { KeyGrants1764200000001 } from './1764200000001-key-grants';
import { WebhookSecrets1764300000000 } from './1764300000000-webhook-secrets';
import { TaskItemTotal1764400000000 } from './1764400000000-task-item-total';
import { FairScheduling1764500000000 } from './1764500000000-fair-scheduling';
import { WebhookPendingIndex1764600000000 } from './1764600000000-webhook-pending-index';
import { RunClaims1764700000000 } from './1764700000000-run-claims';
import { TaskPause1764750000000 } from './1764750000000-task-pause';

/** Every migration, in order. Listed by class (no globs) so tests and builds run the same set. */
export const MIGRATIONS = [
  AccountsAndKeys1763800000000,
  Storages1763900000000,
  EditTasks1764000000000,
  BootstrapKeyMarker1764200000000,
  KeyGrants1764200000001,
  WebhookSecrets1764300000000,
  TaskItemTotal1764400000000,
  FairScheduling1764500000000,
  WebhookPendingIndex1764600000000,
  RunClaims1764700000000,
  TaskPause1764750000000,
];
