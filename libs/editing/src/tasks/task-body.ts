import { Readable } from 'node:stream';
import { TaskItemRows, TaskRows } from '@app/database';
import { Inject, Injectable } from '@nestjs/common';
import { AppConfig, ServiceException } from '@app/common';
import type { EditTaskEntity, EditTaskItemEntity } from '@app/database';
import { findTaskKind, type TaskKind } from './kinds';
import { errorOf, resultOf, RETRYING_SHOWN, taskView, type TaskResult } from './task-view';

/** Items read per database page while a task's body is written: the most of a task the process holds at once. */
export const BODY_PAGE_ITEMS = 500;
/**
 * Characters gathered before a chunk is handed on: a small task is one write, and every string and buffer stays
 * far below V8's large-object size (128 KiB), so that each dies young instead of waiting for a full collection
 * (with whole pages as strings, RSS rose by ~17 MiB per read of 50,000 results until one came).
 */
const CHUNK_CHARS = 16 * 1024;

/**
 * Bytes of the body made ahead of the socket: the next chunks are ready when the client has read the last ones,
 * rather than made then (the database's round trips and the writing overlap with the sending).
 */
const READ_AHEAD_BYTES = 256 * 1024;

/** The view's fields that come after its head, in this order: the body writes them itself. */
const WRITTEN_AFTER = new Set(['errors', 'results', 'retrying', 'result']);

/** The JSON content type Fastify gives a serialised body; a streamed body says the same. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A task's whole body, `{"data": <the task>}` (GET by id and its webhook), written page by page from the database
 * rather than built in memory, so that a task of 50,000 results costs the process no more than one of 500. The
 * bytes are exactly those of `JSON.stringify({ data: taskView(...) })`: the fields before `errors` come from
 * taskView itself (with no items), then each list is written entry by entry with the same functions (errorOf,
 * resultOf). Pages are read by keyset (`seq` after the last one), so each costs the same however deep.
 *
 * Like the whole view, the body is not a snapshot of a task still running: an item that ends while the body is
 * written may or may not be in it (never twice); a final task's items do not change, so its body is stable.
 */
@Injectable()
export class TaskBodies {
  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly store: TaskRows,
    private readonly itemRows: TaskItemRows,
  ) {}

  /**
   * The body of the caller's task as a stream. A missing task is TASK_NOT_FOUND, and the first chunk (which needs
   * the first page) is read before this returns, so that any failure up to there is a proper Error body; a failure
   * after the first byte can only end the connection (the reply's stream handling logs it).
   */
  async open(accountId: number, kind: TaskKind, id: number): Promise<Readable> {
    const task = await this.store.findOwned(accountId, id, kind.name);
    if (!task) throw new ServiceException('TASK_NOT_FOUND');
    const chunks = this.chunks(task);
    const first = await chunks.next();
    return Readable.from(resumed(first, chunks), { objectMode: false, highWaterMark: READ_AHEAD_BYTES });
  }

  /** The body's bytes in chunks of about CHUNK_CHARS or more; each call reads the task afresh (a webhook reads it twice). */
  async *chunks(task: EditTaskEntity): AsyncGenerator<Buffer> {
    let pending = '';
    for await (const part of this.parts(task)) {
      pending += part;
      if (pending.length >= CHUNK_CHARS) {
        yield Buffer.from(pending);
        pending = '';
      }
    }
    if (pending) yield Buffer.from(pending);
  }

  /** The body's text: the first part once the first page is read, then parts of about CHUNK_CHARS. */
  private async *parts(task: EditTaskEntity): AsyncGenerator<string> {
    const [counts, retrying] = await Promise.all([
      this.itemRows.counts(task.id),
      this.itemRows.retrying(task.id, RETRYING_SHOWN),
    ]);
    const shell = taskView(task, { items: [], counts, retrying }, this.config.publicBaseUrl);
    // `errors` (the task-level error, if any), `results`, `retrying` and `result` are written below, in this order
    const { errors, retrying: shown } = shell;
    const head = Object.fromEntries(Object.entries(shell).filter(([name]) => !WRITTEN_AFTER.has(name)));
    const list = new JsonList(`{"data":${JSON.stringify(head).slice(0, -1)},"errors":[`);
    for (const error of errors) list.add(error);
    for await (const items of this.pages(task.id, 'FAILED')) {
      for (const item of items) {
        list.add(errorOf(item, task));
        if (list.length >= CHUNK_CHARS) yield list.take();
      }
      yield list.take();
    }
    list.close('],"results":[');
    let first: TaskResult | undefined;
    for await (const items of this.pages(task.id, 'DONE')) {
      for (const item of items) {
        const result = resultOf(item);
        first ??= result;
        list.add(result);
        if (list.length >= CHUNK_CHARS) yield list.take();
      }
      yield list.take();
    }
    list.close(`],"retrying":${JSON.stringify(shown)}`);
    if (findTaskKind(task.kind)?.singleResult && first) list.close(`,"result":${JSON.stringify(first)}`);
    list.close('}}');
    yield list.take();
  }

  /**
   * The task's final items of one status in order, a page at a time; at least one page, maybe empty. The next page
   * is read while this one is written (one page ahead: a database round trip per page would otherwise add up).
   */
  private async *pages(taskId: number, status: 'DONE' | 'FAILED'): AsyncGenerator<EditTaskItemEntity[]> {
    const read = (after: number) => {
      const page = this.itemRows.finishedAfter(taskId, status, after, BODY_PAGE_ITEMS);
      // awaited below; until then (or if the reader stops first) a failure must not be an unhandled rejection
      page.catch(() => undefined);
      return page;
    };
    for (let next: Promise<EditTaskItemEntity[]> | undefined = read(-1); next;) {
      const items: EditTaskItemEntity[] = await next;
      next = items.length < BODY_PAGE_ITEMS ? undefined : read(items[items.length - 1].seq);
      yield items;
    }
  }
}

/** JSON text written entry by entry: commas between a list's entries, the text taken as it grows. */
class JsonList {
  private comma = '';

  constructor(private text: string) {}

  add(entry: unknown): void {
    this.text += this.comma + JSON.stringify(entry);
    this.comma = ',';
  }

  /** Ends the list with `text` (which may open the next one). */
  close(text: string): void {
    this.text += text;
    this.comma = '';
  }

  get length(): number {
    return this.text.length;
  }

  take(): string {
    const text = this.text;
    this.text = '';
    return text;
  }
}

/** The chunks again from the start, the first one already read (destroying the stream ends `rest` too). */
async function* resumed<T>(first: IteratorResult<T>, rest: AsyncGenerator<T>): AsyncGenerator<T> {
  if (first.done) return;
  yield first.value;
  yield* rest;
}
