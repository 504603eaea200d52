import { Inject, Injectable } from '@nestjs/common';
import { AppConfig, ServiceException } from '@app/common';
import type { TaskKind } from '@app/database';
import { parseStorageReference, StorageResolver } from '@app/storage';
import { TaskQueue } from './task-queue';
import { parseAsyncRequest, parseBatchRequest, type TaskRequest } from './task-request';
import { TaskRunner } from './task-runner';
import { TaskStore } from './task-store';
import type { TaskView } from './task-view';

/**
 * Creates and shows tasks for the API. A request is refused (422) before a task exists when it breaks the
 * schema or names a storage the caller does not have, or one that cannot serve it (a web folder cannot be
 * listed or written); what needs the storage's contents (a missing folder, a bad image) ends the task in ERROR.
 */
@Injectable()
export class TaskService {
  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly store: TaskStore,
    private readonly runner: TaskRunner,
    private readonly queue: TaskQueue,
    private readonly resolver: StorageResolver,
  ) {}

  async create(accountId: number, kind: TaskKind, body: unknown): Promise<TaskView> {
    const request = kind === 'batch' ? parseBatchRequest(body) : parseAsyncRequest(body);
    await this.checkStorages(accountId, request);
    const task = await this.store.create(accountId, kind, body as Record<string, unknown>, request.webhookUrl);
    await this.queue.start(task.id);
    return this.runner.view(task);
  }

  async get(accountId: number, kind: TaskKind, id: number): Promise<TaskView> {
    const task = await this.store.findOwned(accountId, id, kind);
    if (!task) throw new ServiceException('TASK_NOT_FOUND');
    return this.runner.view(task);
  }

  /** Every storage the request names exists in the account and can do what the task needs of it. */
  private async checkStorages(accountId: number, request: TaskRequest): Promise<void> {
    const { input } = request;
    if (input.kind === 'folder') {
      const field = 'input';
      const folder = await this.resolver.resolve(accountId, input.reference, field);
      if (folder.storage.type === 'web_folder') {
        throw ServiceException.validation({
          [field]: ['a web folder cannot be listed; give its images as a list of URLs or storage references'],
        });
      }
    } else {
      const seen = new Set<string>();
      for (const [index, entry] of input.inputs.entries()) {
        const parsed = entry.startsWith('storage://') ? parseStorageReference(entry) : undefined;
        if (!parsed || 'error' in parsed || seen.has(parsed.name)) continue;
        seen.add(parsed.name);
        await this.resolver.resolve(accountId, entry, input.inputs.length === 1 ? 'input' : `input.${index}`);
      }
    }
    const destination = request.edit.output.destination;
    if (destination === undefined) return;
    if (!destination.startsWith('storage://')) {
      throw ServiceException.validation({
        'output.destination': ['an output destination must be a storage reference (storage://<name>/<path>)'],
      });
    }
    const resolved = await this.resolver.resolve(accountId, destination, 'output.destination');
    if (resolved.storage.type === 'web_folder') {
      throw ServiceException.validation({ 'output.destination': ['web folders are read-only'] });
    }
  }
}
