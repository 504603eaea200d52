import { asyncTaskKind } from './async.kind';
import { batchTaskKind } from './batch.kind';
import type { TaskKind } from './task-kind';

export type { TaskKind } from './task-kind';
export { asyncTaskKind, batchTaskKind };

/** The task kinds, registered here and nowhere else: a new kind is its file and one entry in this list. */
const TASK_KINDS: readonly TaskKind[] = [batchTaskKind, asyncTaskKind];

const BY_NAME = new Map(TASK_KINDS.map((kind) => [kind.name, kind]));

/** The names of the task kinds, in their order: the listing's `kind` filter. */
export const TASK_KIND_NAMES: readonly string[] = TASK_KINDS.map((kind) => kind.name);

/** Each kind's name and what it is, for the OpenAPI document. */
export const TASK_KINDS_DESCRIBED = TASK_KINDS.map((kind) => `\`${kind.name}\`: ${kind.description}`).join(' ');

/** The kind of this name, when this build knows it. */
export function findTaskKind(name: string): TaskKind | undefined {
  return BY_NAME.get(name);
}

/** The kind of this name, to run its work: a kind this build does not know (a newer build's row) cannot run. */
export function taskKind(name: string): TaskKind {
  const kind = BY_NAME.get(name);
  if (!kind) throw new Error(`unknown task kind "${name}"`);
  return kind;
}

/**
 * A task's route below the public base URL: its kind's, or, for a kind this build does not know (a row a newer
 * build wrote), the route every task has, so that a listing or a body still shows it.
 */
export function taskPath(task: { id: number; kind: string }): string {
  return findTaskKind(task.kind)?.path(task.id) ?? `/v1/tasks/${task.id}`;
}
