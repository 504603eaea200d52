import type { TaskRequest } from '../task-request';

/**
 * A kind of task (docs/extending.md, "A task kind"): how a request of this kind is read and where its work and its
 * body differ from the others'. Everything else (storing it, listing its input into items, editing each item,
 * scheduling, pausing, cancelling, the webhook, the body streamed page by page) is the same for every kind and
 * reads its kind from here by name, so a new kind is one file in this folder, its entry in index.ts and its routes.
 */
export interface TaskKind {
  /** The name stored with the task (edit_tasks.kind: at most 8 characters), shown in listings and metrics. */
  readonly name: string;
  /** What a task of this kind is, for the listing's `kind` filter in the OpenAPI document. */
  readonly description: string;
  /** The route of a task of this kind below the public base URL: its `result_url`. */
  path(id: number): string;
  /** Validates a request body (every problem in one 422): what the task reads and what each item gets. */
  parse(body: unknown): TaskRequest;
  /**
   * Where an item's result goes, from the request's destination and the folder of the item below the task's input
   * folder (`subPath`, '' for a list or a single image); undefined: the temporary bucket.
   */
  itemDestination(destination: string | undefined, subPath: string): string | undefined;
  /** Whether the task's body also shows its first result as `result` (one image edited in the background). */
  readonly singleResult: boolean;
}
