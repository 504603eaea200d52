import { ServiceException, unknownMemberMessage } from '@app/common';
import { absent, isPlainObject, Issues } from '../dto/dto-validation';
import { checkLocation, LOCATION_MAX_LENGTH } from '../dto/edit-values';
import { parseEditRequest } from '../edit-request';
import type { EditRequest, FormatOptions } from '../edit-request.model';
import { isStorageReference, parseStorageReference } from '@app/storage';

/** Longest list of inputs one batch request may name (a folder has no such limit: it is listed page by page). */
export const BATCH_MAX_INPUTS = 10_000;
export const WEBHOOK_URL_MAX_LENGTH = 2048;

/** What a batch reads: a folder of a storage (listed when the task runs), or files and URLs named one by one. */
export type BatchInput =
  { kind: 'folder'; reference: string; recursive: boolean } | { kind: 'files'; inputs: string[] };

/** The operations and output every item gets; `input` of each item comes from the task's input. */
export interface TaskRequest {
  input: BatchInput;
  edit: Omit<EditRequest, 'input'>;
  webhookUrl?: string;
}

/** What a task request has beside the edit request's members (read here, before the edit is parsed). */
const TASK_MEMBERS = ['webhook_url'];

/** Batch output without a format: jpeg with its defaults (docs/batch.md). */
const BATCH_DEFAULT_FORMAT = 'jpeg';

/**
 * Validates a batch request: `input` (a file or folder reference or URL, a list of them, or `{source, recursive}`),
 * `operations` as in an edit, `output` (a folder; default format jpeg) and `webhook_url`. Every problem in one 422.
 */
export function parseBatchRequest(body: unknown): TaskRequest {
  if (!isPlainObject(body)) throw ServiceException.validation({ body: ['must be a JSON object'] });
  const issues = new Issues();
  const { input: rawInput, webhook_url: rawWebhook, ...rest } = body;
  const input = readBatchInput(rawInput, issues);
  const webhookUrl = readWebhookUrl(rawWebhook, issues);
  const edit = collect(issues, () => parseEditRequest(rest, { input: 'absent', otherMembers: TASK_MEMBERS }));
  if (edit?.output.destination !== undefined) checkFolderDestination(edit.output.destination, issues);
  issues.throwIfAny();
  const output = { ...edit!.output, format: edit!.output.format ?? defaultFormat() };
  return { input: input!, edit: { operations: edit!.operations, output }, webhookUrl };
}

/** Validates an asynchronous edit: the body of `POST /v1/image/edit` plus `webhook_url`. */
export function parseAsyncRequest(body: unknown): TaskRequest {
  if (!isPlainObject(body)) throw ServiceException.validation({ body: ['must be a JSON object'] });
  const issues = new Issues();
  const { webhook_url: rawWebhook, ...rest } = body;
  const webhookUrl = readWebhookUrl(rawWebhook, issues);
  const edit = collect(issues, () => parseEditRequest(rest, { input: 'required', otherMembers: TASK_MEMBERS }));
  issues.throwIfAny();
  const { input, ...operationsAndOutput } = edit!;
  return { input: { kind: 'files', inputs: [input] }, edit: operationsAndOutput, webhookUrl };
}

function defaultFormat(): FormatOptions {
  const parsed = parseEditRequest({ output: { format: BATCH_DEFAULT_FORMAT } }, { input: 'absent' });
  return parsed.output.format!;
}

/** Runs a parser that throws one 422 and adds its details to `issues` instead. */
function collect<T>(issues: Issues, parse: () => T): T | undefined {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof ServiceException) || error.codeName !== 'VALIDATION') throw error;
    issues.merge(error.details as Record<string, string[]>);
    return undefined;
  }
}

function readBatchInput(raw: unknown, issues: Issues): BatchInput | undefined {
  if (absent(raw)) {
    issues.add('input', 'input is required');
    return undefined;
  }
  if (typeof raw === 'string') {
    const problem = checkLocation(raw, LOCATION_MAX_LENGTH, 'allow');
    if (problem !== undefined) return void issues.add('input', `input ${problem}`);
    return isFolderReference(raw)
      ? { kind: 'folder', reference: raw, recursive: false }
      : { kind: 'files', inputs: [raw] };
  }
  if (Array.isArray(raw)) return readInputList(raw, issues);
  if (isPlainObject(raw)) return readFolderInput(raw, issues);
  issues.add(
    'input',
    'input must be a URL or storage reference, a list of them, or {"source": "storage://<name>/<folder>/", "recursive": true|false}',
  );
  return undefined;
}

function readInputList(raw: unknown[], issues: Issues): BatchInput | undefined {
  if (raw.length === 0) return void issues.add('input', 'input must name at least one image');
  if (raw.length > BATCH_MAX_INPUTS) {
    return void issues.add('input', `input may name at most ${BATCH_MAX_INPUTS} images; use a storage folder for more`);
  }
  raw.forEach((entry, index) => {
    const problem = checkLocation(entry, LOCATION_MAX_LENGTH, 'refuse');
    if (problem !== undefined) issues.add(`input.${index}`, `input.${index} ${problem}`);
  });
  return issues.has('input') ? undefined : { kind: 'files', inputs: raw as string[] };
}

/** The members of `{source, recursive}`, the object form of a folder input. */
const FOLDER_INPUT_MEMBERS = ['source', 'recursive'];

function readFolderInput(raw: Record<string, unknown>, issues: Issues): BatchInput | undefined {
  for (const key of Object.keys(raw)) {
    if (!FOLDER_INPUT_MEMBERS.includes(key))
      issues.add(`input.${key}`, unknownMemberMessage(key, FOLDER_INPUT_MEMBERS));
  }
  const { source, recursive } = raw;
  if (!absent(recursive) && typeof recursive !== 'boolean')
    issues.add('input.recursive', 'recursive must be true or false');
  if (typeof source !== 'string' || !isStorageReference(source)) {
    issues.add('input.source', 'source must be a storage folder reference, storage://<name>/<folder>/');
  } else {
    const problem = checkLocation(source, LOCATION_MAX_LENGTH, 'allow');
    if (problem !== undefined) issues.add('input.source', `source ${problem}`);
  }
  if (issues.has('input')) return undefined;
  const folder = isFolderReference(source as string) ? source : `${source}/`;
  return { kind: 'folder', reference: folder as string, recursive: recursive === true };
}

function isFolderReference(value: string): boolean {
  if (!isStorageReference(value)) return false;
  const parsed = parseStorageReference(value);
  return !('error' in parsed) && parsed.isFolder;
}

function checkFolderDestination(destination: string, issues: Issues): void {
  if (isStorageReference(destination) && !isFolderReference(destination)) {
    issues.add(
      'output',
      'the output of a batch must be a folder (a storage reference ending in "/"): each result takes its input\'s name',
    );
  }
}

function readWebhookUrl(raw: unknown, issues: Issues): string | undefined {
  if (absent(raw)) return undefined;
  const rule = `webhook_url must be an http(s) URL of at most ${WEBHOOK_URL_MAX_LENGTH} characters`;
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > WEBHOOK_URL_MAX_LENGTH) {
    return void issues.add('webhook_url', rule);
  }
  try {
    const url = new URL(raw);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '') return raw;
  } catch {
    // falls through to the problem below
  }
  issues.add('webhook_url', rule);
  return undefined;
}
