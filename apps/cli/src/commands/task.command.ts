import { join } from 'node:path';
import { idArgument, intOption, parseCommand, stringOption, type Parsed } from '../args';
import type { ApiClient } from '../api-client';
import { clientFor, type Context } from '../context';
import { fileNameOf, saveDownload } from '../downloads';
import { EXIT, usageError, type ExitCode } from '../exit-codes';
import { cell, formatTable, pageLine, printJson, printLine } from '../output';
import type { Progress } from '../progress';
import {
  getTask,
  isFinal,
  printTaskOutcome,
  taskExitCode,
  watchTask,
  type TaskFailure,
  type TaskResult,
} from '../tasks';

export const TASK_HELP = `atelier task get ID              a task's status, progress and outcome
atelier task list [--status ACCEPTED|PROCESSING|DONE|ERROR|CANCELLED] [--kind batch|async] [--page N] [--per-page N]
atelier task watch ID [--interval MS]   follow a task to its end (progress bar; exit 5 if it failed)
atelier task cancel ID           cancel a task that has not ended: items not started are dropped
atelier task results ID [--errors] [--page N] [--per-page N] [--all] [--download DIR]
                                  a task's results (or errors), a page at a time; --all every page;
                                  --download saves every result of the temporary bucket into DIR
Every subcommand takes --json (JSON only on stdout).`;

interface Page<T> {
  items: T[];
  page: number;
  per_page: number;
  total: number;
}

interface TaskSummary {
  id: number;
  kind: string;
  status: string;
  progress: Progress;
  created_at: string;
  updated_at: string;
}

const PAGING = { page: { type: 'string' }, 'per-page': { type: 'string' } } as const;

export async function taskCommand(context: Context, args: string[]): Promise<ExitCode> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'get':
      return get(context, parseCommand(rest));
    case 'list':
      return list(context, parseCommand(rest, { ...PAGING, status: { type: 'string' }, kind: { type: 'string' } }));
    case 'watch':
      return watch(context, parseCommand(rest, { interval: { type: 'string' } }));
    case 'cancel':
      return cancel(context, parseCommand(rest));
    case 'results':
      return results(
        context,
        parseCommand(rest, {
          ...PAGING,
          errors: { type: 'boolean' },
          all: { type: 'boolean' },
          download: { type: 'string' },
        }),
      );
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      printLine(context, TASK_HELP);
      return sub === undefined ? EXIT.USAGE : EXIT.OK;
    default:
      throw usageError(`Unknown task subcommand "${sub}": use get, list, watch, cancel or results.`);
  }
}

function helpRequested(context: Context, parsed: Parsed): boolean {
  if (parsed.values.help) printLine(context, TASK_HELP);
  return parsed.values.help === true;
}

async function get(context: Context, parsed: Parsed): Promise<ExitCode> {
  if (helpRequested(context, parsed)) return EXIT.OK;
  const task = await getTask(clientFor(context, parsed.values), idArgument(parsed, 0, 'task ID'));
  if (parsed.values.json) printJson(context, task);
  else {
    printLine(
      context,
      `Task ${task.id} (${task.kind}) created ${task.created_at}, finished ${task.finished_at ?? '-'}`,
    );
    if (isFinal(task.status)) printTaskOutcome(context, task);
    else {
      const { done, failed, total, retrying } = task.progress;
      printLine(
        context,
        `Task ${task.id} ${task.status}: ${done} of ${total} done, ${failed} failed, ${retrying} retrying.`,
      );
    }
  }
  return EXIT.OK;
}

/** DELETE /v1/tasks/{id}: the task as the listing shows it, CANCELLED; a task that has ended is the API's 409. */
async function cancel(context: Context, parsed: Parsed): Promise<ExitCode> {
  if (helpRequested(context, parsed)) return EXIT.OK;
  const id = idArgument(parsed, 0, 'task ID');
  const task = await clientFor(context, parsed.values).request<TaskSummary>('DELETE', `/v1/tasks/${id}`);
  if (parsed.values.json) printJson(context, task);
  else {
    const { done, failed, cancelled = 0 } = task.progress;
    printLine(context, `Task ${task.id} ${task.status}: ${done} done, ${failed} failed, ${cancelled} not run.`);
  }
  return EXIT.OK;
}

async function list(context: Context, parsed: Parsed): Promise<ExitCode> {
  if (helpRequested(context, parsed)) return EXIT.OK;
  const { values } = parsed;
  const page = await clientFor(context, values).request<Page<TaskSummary>>('GET', '/v1/tasks', {
    query: {
      status: stringOption(values, 'status')?.toUpperCase(),
      kind: stringOption(values, 'kind'),
      page: intOption(values, 'page', 1),
      per_page: intOption(values, 'per-page', 1, 100),
    },
  });
  if (values.json) printJson(context, page);
  else {
    const rows = page.items.map((task) => [
      String(task.id),
      task.kind,
      task.status,
      `${task.progress.done}/${task.progress.total}`,
      String(task.progress.failed),
      task.created_at,
    ]);
    printLine(context, formatTable(['ID', 'KIND', 'STATUS', 'DONE', 'FAILED', 'CREATED'], rows));
    printLine(context, pageLine(page));
  }
  return EXIT.OK;
}

async function watch(context: Context, parsed: Parsed): Promise<ExitCode> {
  if (helpRequested(context, parsed)) return EXIT.OK;
  const id = idArgument(parsed, 0, 'task ID');
  const interval = intOption(parsed.values, 'interval', 100, 60_000) ?? 500;
  const quiet = parsed.values.json === true;
  const task = await watchTask(clientFor(context, parsed.values), id, context, { quiet, intervalMs: interval });
  if (quiet) printJson(context, task);
  else printTaskOutcome(context, task);
  return taskExitCode(task);
}

/** The pages of a task's results or errors: the one asked for, or all of them. */
async function* pages<T>(client: ApiClient, path: string, first: number, perPage: number | undefined, all: boolean) {
  for (let page = first; ; page += 1) {
    const answer = await client.request<Page<T>>('GET', path, { query: { page, per_page: perPage } });
    yield answer;
    if (!all || answer.page * answer.per_page >= answer.total || answer.items.length === 0) return;
  }
}

async function results(context: Context, parsed: Parsed): Promise<ExitCode> {
  if (helpRequested(context, parsed)) return EXIT.OK;
  const { values } = parsed;
  const id = idArgument(parsed, 0, 'task ID');
  const errors = values.errors === true;
  const download = stringOption(values, 'download');
  if (download !== undefined && errors) throw usageError('--download saves results; it cannot be used with --errors.');
  const client = clientFor(context, values);
  const all = values.all === true || download !== undefined;
  const path = `/v1/tasks/${id}/${errors ? 'errors' : 'results'}`;
  const perPage = intOption(values, 'per-page', 1, 100);
  for await (const page of pages<TaskResult | TaskFailure>(
    client,
    path,
    intOption(values, 'page', 1) ?? 1,
    perPage,
    all,
  )) {
    if (download !== undefined)
      await downloadPage(context, client, page.items as TaskResult[], download, values.json === true);
    else if (values.json) printJson(context, page);
    else printPage(context, page, errors);
  }
  return EXIT.OK;
}

function printPage(context: Context, page: Page<TaskResult | TaskFailure>, errors: boolean): void {
  const rows = page.items.map((item) =>
    errors
      ? [cell(item.input_object?.input), (item as TaskFailure).error]
      : [
          cell(item.input_object?.input),
          cell((item as TaskResult).output_object.tmp_url || (item as TaskResult).output_object.service_storage_uri),
        ],
  );
  printLine(context, formatTable(errors ? ['INPUT', 'ERROR'] : ['INPUT', 'OUTPUT'], rows));
  printLine(context, pageLine(page));
}

async function downloadPage(context: Context, client: ApiClient, items: TaskResult[], folder: string, json: boolean) {
  for (const item of items) {
    const url = item.output_object.tmp_url;
    if (!url) {
      context.err.write(`Skipped ${item.input_object.input}: written to ${item.output_object.service_storage_uri}.\n`);
      continue;
    }
    const path = await saveDownload(client, url, join(folder, fileNameOf(url)));
    if (json) context.out.write(`${JSON.stringify({ input: item.input_object.input, saved_to: path })}\n`);
    else printLine(context, `Saved ${path}`);
  }
}
