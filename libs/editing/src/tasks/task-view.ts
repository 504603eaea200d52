import { mediaTypeOfExtension } from '@app/common';
import {
  isFinalTaskStatus,
  type EditTaskEntity,
  type EditTaskItemEntity,
  type RetryingItems,
  type TaskCounts,
  type TaskStatus,
} from '@app/database';
import { storageUriFields, type ImageInfo, type OutputImageInfo } from '../image-info';
import type { EditNotice } from '../notices';
import { findTaskKind, taskPath } from './kinds';

/** An input as the task reports it: its ImageInfo when its header was read, and where it came from. */
export type TaskInputInfo = ImageInfo & { input: string };

export interface TaskResult {
  input_object: TaskInputInfo;
  output_object: OutputImageInfo;
  /** The edit's notices, when it had any (EditResult.notices). */
  notices?: EditNotice[];
}

export interface TaskError {
  error: string;
  created_at: string;
  input_object: TaskInputInfo;
}

/** How many items in retry a task lists (`retrying`), bounding its body; `progress.retrying` counts them all. */
export const RETRYING_SHOWN = 20;

/** An item whose last run failed and that will run again (an extension). */
export interface TaskRetry {
  /** The input as the request named it (as in `results` and `errors`). */
  input: string;
  /** Runs started so far, a run in progress included. */
  attempts: number;
  /** Why the last run failed: the text `errors` would show if it were the last. */
  error: string;
}

export interface TaskProgress {
  total: number;
  done: number;
  failed: number;
  retrying: number;
  /** Items a cancellation dropped (never run): on a CANCELLED task only. */
  cancelled?: number;
}

/** Why a task is PAUSED and since when (docs/batch.md, "When the output store is down"). */
export interface TaskPause {
  reason: string;
  since: string;
}

/** The Batch task of the contract, plus `progress` and `retrying` (and `result` for an asynchronous edit). */
export interface TaskView {
  id: number;
  status: TaskStatus;
  result_url: string;
  created_at: string;
  finished_at: string | null;
  request: Record<string, unknown>;
  progress: TaskProgress;
  /** On a PAUSED task only. */
  pause?: TaskPause;
  errors: TaskError[];
  results: TaskResult[];
  retrying: TaskRetry[];
  /**
   * Asynchronous edits only: the one result once done. Absent until then and on failure (never null, never `{}`:
   * the family's schema requires `input_object` and `output_object` in it, and its clients reject an object without).
   */
  result?: TaskResult;
}

/**
 * An input whose header was never read: what its name says (its extension, and the format and MIME type the
 * media-type table gives that extension, empty when it names none), sizes 0.
 */
function unreadInput(input: string): TaskInputInfo {
  const name = input.split('?')[0].split('/').pop() ?? '';
  const ext = name.includes('.') ? name.split('.').pop()!.toLowerCase() : '';
  const known = ext ? mediaTypeOfExtension(ext) : undefined;
  return { ext, mps: 0, mime: known?.mime ?? '', format: known?.type ?? '', width: 0, height: 0, input };
}

function inputOf(item: EditTaskItemEntity): TaskInputInfo {
  return item.inputInfo ? { ...(item.inputInfo as unknown as ImageInfo), input: item.input } : unreadInput(item.input);
}

/**
 * The stored output, with the storage reference under both names (results stored before the alias included), and
 * the edit's notices, which the same column holds (TaskItemRows.finishItem).
 */
export function resultOf(item: EditTaskItemEntity): TaskResult {
  const { notices, ...output } = item.outputInfo as unknown as OutputImageInfo & { notices?: EditNotice[] };
  return {
    input_object: inputOf(item),
    output_object: output.service_storage_uri ? { ...output, ...storageUriFields(output.service_storage_uri) } : output,
    ...(notices && { notices }),
  };
}

/** What a task's view is made of, read from its items. */
export interface TaskItems {
  /** The final items, in order. */
  items: EditTaskItemEntity[];
  counts: TaskCounts;
  retrying: RetryingItems;
}

/** A failed item as the task's `errors` list it. */
export function errorOf(item: EditTaskItemEntity, task: Pick<EditTaskEntity, 'createdAt'>): TaskError {
  return {
    error: item.error ?? 'failed',
    created_at: (item.finishedAt ?? task.createdAt).toISOString(),
    input_object: inputOf(item),
  };
}

/** The error of a task that could not run at all (listed first among its errors). */
export function taskLevelError(task: EditTaskEntity): TaskError | undefined {
  if (!task.error) return undefined;
  return {
    error: task.error,
    created_at: (task.finishedAt ?? task.createdAt).toISOString(),
    input_object: unreadInput(describeInput(task.request)),
  };
}

/** A task in a listing (GET /v1/tasks): what it is and how far it got, without its items. */
export interface TaskSummary {
  id: number;
  kind: EditTaskEntity['kind'];
  status: TaskStatus;
  progress: TaskProgress;
  /** On a PAUSED task only. */
  pause?: TaskPause;
  created_at: string;
  finished_at: string | null;
  result_url: string;
}

export function taskSummary(
  task: EditTaskEntity,
  counts: TaskCounts & { retrying: number },
  publicBaseUrl: string,
): TaskSummary {
  const final = isFinalTaskStatus(task.status);
  return {
    id: task.id,
    kind: task.kind,
    status: task.status,
    progress: {
      total: task.itemTotal ?? counts.total,
      done: counts.done,
      failed: counts.failed,
      retrying: final ? 0 : counts.retrying,
      ...cancelledOf(task, counts),
    },
    ...pauseOf(task),
    created_at: task.createdAt.toISOString(),
    finished_at: task.finishedAt ? task.finishedAt.toISOString() : null,
    result_url: `${publicBaseUrl}${taskPath(task)}`,
  };
}

export function taskView(
  task: EditTaskEntity,
  { items, counts, retrying }: TaskItems,
  publicBaseUrl: string,
): TaskView {
  // A final task retries nothing: items that a task-level error left pending never run again.
  const final = isFinalTaskStatus(task.status);
  const results = items.filter((item) => item.status === 'DONE').map(resultOf);
  const errors: TaskError[] = items.filter((item) => item.status === 'FAILED').map((item) => errorOf(item, task));
  const failedTask = taskLevelError(task);
  if (failedTask) errors.unshift(failedTask);
  return {
    id: task.id,
    status: task.status,
    result_url: `${publicBaseUrl}${taskPath(task)}`,
    created_at: task.createdAt.toISOString(),
    finished_at: task.finishedAt ? task.finishedAt.toISOString() : null,
    request: task.request,
    progress: {
      // A list's total is stored as the task is created; a folder's grows as it is listed.
      total: task.itemTotal ?? counts.total,
      done: counts.done,
      failed: counts.failed,
      retrying: final ? 0 : retrying.count,
      ...cancelledOf(task, counts),
    },
    ...pauseOf(task),
    errors,
    results,
    retrying: (final ? [] : retrying.items).map((item) => ({
      input: item.input,
      attempts: item.attempts,
      error: item.error ?? '',
    })),
    ...(findTaskKind(task.kind)?.singleResult && results[0] && { result: results[0] }),
  };
}

/** A PAUSED task's `pause`: why, and since when. */
function pauseOf(task: EditTaskEntity): { pause?: TaskPause } {
  if (task.status !== 'PAUSED') return {};
  return { pause: { reason: task.pauseReason ?? '', since: (task.pausedAt ?? task.createdAt).toISOString() } };
}

/** A cancelled task's items that never ran: those still pending (an item running then may finish after). */
function cancelledOf(task: EditTaskEntity, counts: TaskCounts): { cancelled?: number } {
  return task.status === 'CANCELLED' ? { cancelled: counts.pending } : {};
}

/** The task's input as one string, for a task-level error. */
function describeInput(request: Record<string, unknown>): string {
  const input = request.input;
  if (typeof input === 'string') return input;
  if (Array.isArray(input)) return String(input[0] ?? '');
  if (input && typeof input === 'object' && 'source' in input) return String((input as { source: unknown }).source);
  return '';
}
