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

/** The kind of this name; a stored task of a kind this build does not know is a programming error. */
export function taskKind(name: string): TaskKind {
  const kind = BY_NAME.get(name);
  if (!kind) throw new Error(`unknown task kind "${name}"`);
  return kind;
}
