import { readFileSync } from 'node:fs';
import { intOption, parseCommand, stringOption } from '../args';
import { clientFor, type Context } from '../context';
import { editMembers, EDIT_OPTIONS } from '../edit-request';
import { EXIT, usageError, type ExitCode } from '../exit-codes';
import { printJson, printLine } from '../output';
import { printTaskOutcome, taskExitCode, watchTask, type Task } from '../tasks';

export const BATCH_HELP = `atelier batch SOURCE... [options]

Starts a batch edit and prints its task. SOURCE is a storage folder (storage://NAME/folder/), one or more
image URLs or storage:// files, or @FILE: a text file with one URL or reference per line.

  --recursive               a folder's sub-folders too
  --operations JSON|@FILE, --width, --height, --fit, --format, --quality   as for \`atelier edit\`
  --output storage://NAME/folder/   where the results go (default: the temporary bucket)
  --webhook URL             called when the task ends
  --watch                   follow the task to its end: a progress bar on a terminal, a line per change
                            otherwise; exits 5 when the task ends in ERROR or items failed
  --interval MS             how often --watch asks (default 500)
  --json                    JSON only on stdout: the task as created, or with --watch the final task`;

/** The list of inputs of `@file`: one per line, blank lines and `#` comments skipped. */
function readList(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw usageError(`Cannot read the list ${path}: ${(error as NodeJS.ErrnoException).code ?? error}.`);
  }
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
}

/** The request's `input`: a folder (with `recursive`), or the list of files and URLs. */
export function batchInput(sources: string[], recursive: boolean): unknown {
  const inputs = sources.flatMap((source) => (source.startsWith('@') ? readList(source.slice(1)) : [source]));
  if (inputs.length === 0) throw usageError('Missing SOURCE: a storage folder, URLs or @FILE (see --help).');
  const folder = inputs.length === 1 && inputs[0].endsWith('/');
  if (recursive && !folder) throw usageError('--recursive applies to one storage folder (ending in /).');
  if (folder) return recursive ? { source: inputs[0], recursive: true } : inputs[0];
  return inputs;
}

export async function batchCommand(context: Context, args: string[]): Promise<ExitCode> {
  const parsed = parseCommand(args, {
    ...EDIT_OPTIONS,
    recursive: { type: 'boolean' },
    webhook: { type: 'string' },
    watch: { type: 'boolean' },
    interval: { type: 'string' },
  });
  const { values } = parsed;
  if (values.help) {
    printLine(context, BATCH_HELP);
    return EXIT.OK;
  }
  const interval = intOption(values, 'interval', 100, 60_000) ?? 500;
  const { operations, output } = editMembers(values);
  const body = {
    input: batchInput(parsed.positionals, values.recursive === true),
    ...(operations ? { operations } : {}),
    ...(output ? { output: output.format === undefined ? output.destination : output } : {}),
    ...(stringOption(values, 'webhook') ? { webhook_url: stringOption(values, 'webhook') } : {}),
  };
  const client = clientFor(context, values);
  const task = await client.request<Task>('POST', '/v1/image/edit/batch', { body });
  if (!values.watch) {
    if (values.json) printJson(context, task);
    else {
      printLine(context, `Task ${task.id} ${task.status}: ${task.result_url}`);
      printLine(context, `Follow it with: atelier task watch ${task.id}`);
    }
    return EXIT.OK;
  }
  if (!values.json) context.err.write(`Task ${task.id} started.\n`);
  const final = await watchTask(client, task.id, context, { quiet: values.json === true, intervalMs: interval });
  if (values.json) printJson(context, final);
  else printTaskOutcome(context, final);
  return taskExitCode(final);
}
