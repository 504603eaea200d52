import { DataSource } from 'typeorm';
import {
  AccountEntity,
  DEFAULT_ACCOUNT_NAME,
  EditTaskEntity,
  EditTaskItemEntity,
  type TaskStatus,
} from '@app/database';
import { client } from './http';
import type { TestApp } from './test-app';

/** Rows inserted per statement (SQLite's limit on bound variables allows far more). */
const INSERT_ROWS = 500;

export interface TaskRowsOptions {
  kind?: string;
  status?: TaskStatus;
  /** Final items written; every seventh one FAILED, the rest DONE (some with notices, some in a storage). */
  items: number;
  /** Items left PENDING after the final ones, each with a retried failure (the view's `retrying`). */
  retrying?: number;
  /** A task-level error (listed first among the errors). */
  error?: string;
  webhookUrl?: string;
}

/** The account of the test app's admin key (ADMIN_API_KEY: the default account, made at its first request). */
export async function adminAccountId(app: TestApp): Promise<number> {
  const res = await client(app.url, app.adminKey).get('/v1/tasks');
  if (res.status !== 200) throw new Error(`GET /v1/tasks answered ${res.status}: ${res.text}`);
  const accounts = app.app.get(DataSource).getRepository(AccountEntity);
  return (await accounts.findOneByOrFail({ name: DEFAULT_ACCOUNT_NAME })).id;
}

/**
 * A task as the runner would leave it, written straight into the app's database: thousands of items in a second,
 * without running thousands of edits. Returns the task's id.
 */
export async function insertTaskRows(app: TestApp, accountId: number, options: TaskRowsOptions): Promise<number> {
  const data = app.app.get(DataSource);
  const kind = options.kind ?? 'batch';
  const status = options.status ?? 'DONE';
  const task = await data.getRepository(EditTaskEntity).save({
    accountId,
    kind,
    status,
    request: { input: ['https://example.com/a.jpg'], operations: { resizing: { width: 64 } } },
    error: options.error ?? null,
    expanded: true,
    itemTotal: options.items + (options.retrying ?? 0),
    webhookUrl: options.webhookUrl ?? null,
    webhookState: options.webhookUrl ? 'pending' : 'none',
    finishedAt: status === 'DONE' || status === 'ERROR' ? new Date('2026-01-02T03:04:05.678Z') : null,
  });
  const rows = [];
  for (let seq = 0; seq < options.items; seq++) rows.push(finalItem(task.id, seq));
  for (let seq = options.items; seq < options.items + (options.retrying ?? 0); seq++) {
    rows.push({ ...base(task.id, seq), error: `Download of item ${seq} failed: HTTP 503.` });
  }
  const items = data.getRepository(EditTaskItemEntity);
  for (let start = 0; start < rows.length; start += INSERT_ROWS) {
    await items.insert(rows.slice(start, start + INSERT_ROWS));
  }
  return task.id;
}

/** How many of `items` final items insertTaskRows writes FAILED. */
export function failedOf(items: number): number {
  return Math.ceil(Math.max(0, items - 3) / 7);
}

function base(taskId: number, seq: number) {
  return {
    taskId,
    seq,
    input: `https://images.example.com/folder/${seq}.jpg?v=${seq % 3}`,
    subPath: '',
    status: 'PENDING' as const,
    attempts: 1,
    inputInfo: null,
    outputInfo: null,
    error: null as string | null,
    finishedAt: null as Date | null,
  };
}

function finalItem(taskId: number, seq: number) {
  const finishedAt = new Date(Date.UTC(2026, 0, 2, 3, 0, 0, seq));
  const input = { ext: 'jpg', mps: 0.48, mime: 'image/jpeg', format: 'jpeg', width: 800, height: 600 };
  if (seq % 7 === 3) {
    // some failed before their header was read, some after
    const read = seq % 2 === 0 ? { inputInfo: input } : {};
    return { ...base(taskId, seq), ...read, status: 'FAILED' as const, error: `item ${seq}: "bad" image`, finishedAt };
  }
  const uri = `storage://results/out/${seq}.webp`;
  const output = {
    ext: 'webp',
    mps: 0.0064,
    mime: 'image/webp',
    format: 'webp',
    width: 80,
    height: 80,
    tmp_url: `https://files.example.com/tmp/${seq}.webp`,
    // results stored before the alias existed carry only service_storage_uri: the view adds the alias
    ...(seq % 5 === 0 && { service_storage_uri: uri }),
    ...(seq % 11 === 0 && { notices: [{ code: 'NO_FACE_FOUND', field: 'operations.privacy', message: 'ünïcode ✓' }] }),
  };
  return { ...base(taskId, seq), status: 'DONE' as const, inputInfo: input, outputInfo: output, finishedAt };
}
