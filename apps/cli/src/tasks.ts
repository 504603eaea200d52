import type { ApiClient } from './api-client';
import { EXIT, type ExitCode } from './exit-codes';
import { printLine, type Streams } from './output';
import { isFinal, ProgressView, type Progress } from './progress';

/** A task as `GET /v1/image/edit/batch/{id}` (or `/async/{id}`) answers it. */
export interface Task {
  id: number;
  status: 'ACCEPTED' | 'PROCESSING' | 'PAUSED' | 'DONE' | 'ERROR' | 'CANCELLED';
  result_url: string;
  created_at: string;
  finished_at: string | null;
  progress: Progress;
  results: TaskResult[];
  errors: TaskFailure[];
  /** `batch`, `async`: the route it has (GET /v1/tasks lists every kind). */
  kind?: string;
}

export interface TaskResult {
  input_object: { input?: string };
  output_object: { tmp_url?: string; service_storage_uri?: string; format?: string; width?: number; height?: number };
}

export interface TaskFailure {
  error: string;
  input_object: { input?: string };
}

export { isFinal };

/**
 * The task of this id with its results and errors: its kind from the summary (GET /v1/tasks/{id}) unless known,
 * then the kind's own route, /v1/image/edit/{kind}/{id}.
 */
export async function getTask(client: ApiClient, id: string | number, kind?: string): Promise<Task> {
  kind ??= (await client.request<Pick<Task, 'kind'>>('GET', `/v1/tasks/${id}`)).kind;
  return { ...(await client.request<Task>('GET', `/v1/image/edit/${encodeURIComponent(kind!)}/${id}`)), kind };
}

/** 0 when the task is DONE with no failed item, else 5: what scripts branch on. */
export const taskExitCode = (task: Pick<Task, 'status' | 'progress'>): ExitCode =>
  task.status === 'DONE' && task.progress.failed === 0 ? EXIT.OK : EXIT.TASK_FAILED;

/**
 * Polls a task until it is final (DONE, ERROR or CANCELLED), every `intervalMs`, showing its progress unless `quiet`; resolves with
 * the final task. Bounded by `timeoutMs` when given.
 */
export async function watchTask(
  client: ApiClient,
  id: string | number,
  streams: Streams,
  options: { quiet: boolean; intervalMs: number; timeoutMs?: number },
): Promise<Task> {
  const view = new ProgressView(streams);
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  // Ctrl-C stops watching, not the task: say so on a line of its own, and how to pick it up again.
  const interrupted = () => {
    view.end();
    streams.err.write(`Stopped watching; task ${id} goes on: atelier task watch ${id}\n`);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  try {
    for (;;) {
      // the summary (status and progress, no items) while it runs; the whole task once, when it has ended
      const summary = await client.request<Pick<Task, 'id' | 'status' | 'progress' | 'kind'>>('GET', `/v1/tasks/${id}`);
      if (!options.quiet) view.update(summary);
      if (isFinal(summary.status)) return await getTask(client, id, summary.kind);
      if (Date.now() > deadline) throw new Error(`task ${id} did not end in time`);
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
    }
  } finally {
    process.off('SIGINT', interrupted);
    view.end();
  }
}

/** The lines a person reads after a task: its outcome and, when items failed, why (the first ten). */
export function printTaskOutcome(streams: Streams, task: Task): void {
  const { done, failed, total } = task.progress;
  printLine(streams, `Task ${task.id} ${task.status}: ${done} of ${total} done, ${failed} failed.`);
  for (const failure of task.errors.slice(0, 10)) {
    printLine(streams, `  failed: ${failure.input_object?.input ?? '(the task)'}: ${failure.error}`);
  }
  if (task.errors.length > 10) {
    printLine(streams, `  ... and ${task.errors.length - 10} more: atelier task results ${task.id} --errors`);
  }
  printLine(streams, `Results: atelier task results ${task.id}  (${task.result_url})`);
}
