import { randomUUID } from 'node:crypto';
import type { GenerativeConfig } from '@app/common';
import type { GenerativeBackend, PortImage } from '@app/image-pipeline';
import {
  type Workflow,
  type WorkflowPlaceholder,
  defaultWorkflowPath,
  fillWorkflow,
  loadWorkflow,
} from './comfyui-workflow';
import { GeneratorClient, type GeneratorSession } from './generator-client';
import { type GeneratorJob, HttpGenerativeBackend } from './http-backend';
import { portImage } from './pixel-prep';
import { generatorSize } from './job-prompts';

/** ComfyUI's MAX_RESOLUTION is 8192 (16384 in newer builds); SD checkpoints work best far below it. */
const SIZE_LIMITS = { multiple: 8, min: 64, max: 2048 };
/** A cancelled job's clean-up (dequeue, interrupt) gets this long of its own. */
const CLEANUP_MS = 2_000;
/** Polls between two looks at the queue for a prompt that is neither there nor in the history (lost). */
const POLLS_PER_QUEUE_CHECK = 20;

interface OutputImage {
  filename: string;
  subfolder: string;
  type: string;
}

interface HistoryEntry {
  outputs?: Record<string, { images?: OutputImage[] }>;
  status?: { status_str?: string; completed?: boolean; messages?: [string, Record<string, unknown>][] };
}

interface NodeError {
  errors?: { type?: string; message?: string; details?: string }[];
  class_type?: string;
}

/** ComfyUI's error in a 400 of /prompt: `error` a string (older builds) or `{type, message, details}`. */
function comfyErrorMessage(_status: number, body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const { error, node_errors: nodeErrors } = body as { error?: unknown; node_errors?: Record<string, NodeError> };
  const parts: string[] = [];
  if (typeof error === 'string') parts.push(error);
  else if (error && typeof error === 'object') {
    const { message, details } = error as { message?: string; details?: string };
    parts.push([message, details].filter(Boolean).join(': '));
  }
  for (const [id, node] of Object.entries(nodeErrors ?? {})) {
    const reasons = (node.errors ?? []).map((item) => [item.message, item.details].filter(Boolean).join(': '));
    parts.push(`node ${id} (${node.class_type ?? '?'}): ${reasons.join('; ')}`);
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/**
 * ComfyUI (docs/generator-protocols.md, A): the job's files uploaded (`POST /upload/image`), the workflow queued
 * with them (`POST /prompt`), `/history/{id}` polled until it has outputs or an error, the first image of the
 * SaveImage node fetched from `/view`. The mask is uploaded as a grey PNG, white where to paint, for the workflow's
 * `LoadImageMask` (channel red). A style transfer sends an all-white mask: the whole image, at the style's denoise.
 */
export class ComfyUiBackend extends HttpGenerativeBackend {
  readonly name = 'comfyui';
  protected readonly client: GeneratorClient;
  private readonly workflow: Workflow;
  private readonly placeholders: Set<WorkflowPlaceholder>;
  private readonly clientId = randomUUID();

  constructor(config: GenerativeConfig, local: GenerativeBackend) {
    super(config, local);
    ({ workflow: this.workflow, placeholders: this.placeholders } = loadWorkflow(
      config.comfyWorkflow ?? defaultWorkflowPath(),
    ));
    this.client = new GeneratorClient({
      kind: 'ComfyUI',
      config,
      headers: config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {},
      errorMessage: comfyErrorMessage,
    });
  }

  protected async generate(job: GeneratorJob): Promise<Buffer> {
    const { session, details } = job;
    const checkpoint = this.placeholders.has('checkpoint') ? await this.checkpoint(job) : undefined;
    const { width, height } = job.image.pixels;
    const mask = job.mask ?? portImage({ data: new Uint8Array(width * height).fill(255), width, height, channels: 1 });
    const reference = this.placeholders.has('reference') ? job.reference : undefined;
    if (job.reference && !reference) details.reference = 'not sent: the workflow has no {{reference}}';
    const tag = randomUUID();
    const size = generatorSize(width, height, SIZE_LIMITS);
    const prompt = fillWorkflow(this.workflow, {
      image: await this.upload(session, job.image, `atelier-${tag}-image.png`),
      mask: await this.upload(session, mask, `atelier-${tag}-mask.png`),
      reference: reference && (await this.upload(session, reference, `atelier-${tag}-reference.png`)),
      prompt: job.prompt,
      negative_prompt: job.negativePrompt ?? '',
      seed: job.seed,
      steps: job.steps,
      denoise: job.denoise,
      checkpoint,
      width: size.width,
      height: size.height,
    });
    const promptId = await this.queue(session, prompt);
    details.prompt_id = promptId;
    try {
      const image = await this.finished(session, promptId);
      const query = new URLSearchParams({ filename: image.filename, subfolder: image.subfolder, type: image.type });
      let answer = await session.request({ method: 'GET', path: `/view?${query}`, accept: [404] });
      if (answer.status === 404) {
        // The history may list a file a moment before it is written out: one more look, then a failure.
        await session.sleep(this.config.pollIntervalMs);
        answer = await session.request({ method: 'GET', path: `/view?${query}` });
      }
      this.forget(promptId);
      return answer.body;
    } catch (error) {
      if (session.signal.aborted) await this.cancel(promptId);
      throw error;
    }
  }

  /** The configured checkpoint, checked against the server's list; none configured: the first it has. */
  private async checkpoint(job: GeneratorJob): Promise<string> {
    const answer = await job.session.request({ method: 'GET', path: '/models/checkpoints' });
    const installed = answer.json<string[]>();
    if (job.model === undefined) {
      if (installed.length === 0) throw this.client.failure('has no checkpoint installed (models/checkpoints)', false);
      return installed[0];
    }
    if (!installed.includes(job.model)) {
      const list = installed.slice(0, 10).join(', ');
      throw this.client.failure(`has no checkpoint "${job.model}"`, false, `it has: ${list || 'none'}`);
    }
    return job.model;
  }

  /** Uploads one file to ComfyUI's input folder; the name to use in the workflow is the one it answers. */
  private async upload(session: GeneratorSession, image: PortImage, filename: string): Promise<string> {
    const form = new FormData();
    form.append('image', new Blob([await image.png()], { type: 'image/png' }), filename);
    form.append('type', 'input');
    form.append('overwrite', 'true');
    const answer = await session.request({ method: 'POST', path: '/upload/image', form, idempotent: true });
    const { name, subfolder } = answer.json<{ name: string; subfolder?: string }>();
    return subfolder ? `${subfolder}/${name}` : name;
  }

  /** Queues the workflow; a 400 (validation, node errors) fails at once: sending it again changes nothing. */
  private async queue(session: GeneratorSession, prompt: Workflow): Promise<string> {
    const answer = await session.request({
      method: 'POST',
      path: '/prompt',
      json: { prompt, client_id: this.clientId },
      accept: [400],
    });
    if (answer.status === 400) {
      throw this.client.refusal(400, answer.body, 'POST /prompt: it refused the workflow', false);
    }
    const id = answer.json<{ prompt_id?: unknown }>().prompt_id;
    // it goes into paths and messages: an id of ComfyUI's shape (a UUID) or the caller's, nothing else
    if (typeof id !== 'string' || !/^[\w-]{1,64}$/.test(id)) {
      throw this.client.failure('answered POST /prompt without a usable prompt id', false, String(id));
    }
    return id;
  }

  /**
   * Polls the history until the prompt is done: its first output image, or a failure naming the node. Every
   * {@link POLLS_PER_QUEUE_CHECK} polls an unfinished prompt is looked for in the queue: in neither, it was lost.
   */
  private async finished(session: GeneratorSession, promptId: string): Promise<OutputImage> {
    for (let poll = 1; ; poll += 1) {
      const entry = await this.historyEntry(session, promptId);
      if (entry) {
        const image = this.outputOf(entry);
        if (image) return image;
      } else if (poll % POLLS_PER_QUEUE_CHECK === 0 && (await this.queueState(session, promptId)) === 'absent') {
        const late = await this.historyEntry(session, promptId);
        if (late) return this.outputOf(late) ?? this.finished(session, promptId);
        throw this.client.failure(`lost prompt ${promptId}: neither queued nor in the history (restarted or cleared?)`);
      }
      await session.sleep(this.config.pollIntervalMs);
    }
  }

  private async historyEntry(session: GeneratorSession, promptId: string): Promise<HistoryEntry | undefined> {
    const answer = await session.request({ method: 'GET', path: `/history/${encodeURIComponent(promptId)}` });
    return answer.json<Record<string, HistoryEntry>>()[promptId];
  }

  /** A finished entry's image; undefined while it has none; a failure for an execution error. */
  private outputOf(entry: HistoryEntry): OutputImage | undefined {
    const failed = entry.status?.messages?.find(
      ([event]) => event === 'execution_error' || event === 'execution_interrupted',
    );
    if (entry.status?.status_str === 'error' || failed) {
      const data = failed?.[1] ?? {};
      // the node named from our own workflow: the generator's text (its exception) goes to the log only
      const nodeId = String(data.node_id ?? '');
      const node = this.workflow[nodeId] ? `node ${nodeId} (${this.workflow[nodeId].class_type})` : 'a node';
      if (failed?.[0] === 'execution_interrupted') throw this.client.failure(`was interrupted at ${node}`);
      throw this.client.failure(`failed at ${node}`, true, String(data.exception_message ?? ''));
    }
    const saved = Object.entries(entry.outputs ?? {}).sort(([a], [b]) => this.outputRank(a) - this.outputRank(b));
    const image = saved.flatMap(([, output]) => output.images ?? [])[0];
    if (!image && entry.status?.completed) throw this.client.failure('finished the prompt without an output image');
    return image;
  }

  /** Where the prompt is in ComfyUI's queue: running, pending or absent. */
  private async queueState(session: GeneratorSession, promptId: string): Promise<'running' | 'pending' | 'absent'> {
    const answer = await session.request({ method: 'GET', path: '/queue' });
    const queue = answer.json<{ queue_running?: unknown[][]; queue_pending?: unknown[][] }>();
    if ((queue.queue_running ?? []).some((item) => item[1] === promptId)) return 'running';
    if ((queue.queue_pending ?? []).some((item) => item[1] === promptId)) return 'pending';
    return 'absent';
  }

  /** SaveImage nodes' outputs first (a workflow may also preview). */
  private outputRank(nodeId: string): number {
    return this.workflow[nodeId]?.class_type === 'SaveImage' ? 0 : 1;
  }

  /** A job given up: out of the queue if it still waits; interrupted only if it is the one running (not another team's). */
  private async cancel(promptId: string): Promise<void> {
    const session = this.client.session(AbortSignal.timeout(CLEANUP_MS));
    try {
      await session.request({ method: 'POST', path: '/queue', json: { delete: [promptId] }, idempotent: true });
      if ((await this.queueState(session, promptId)) === 'running') {
        await session.request({ method: 'POST', path: '/interrupt', json: { prompt_id: promptId }, idempotent: true });
      }
    } catch {
      // Best effort: the job is already failing with its own error.
    }
  }

  /** Drops the finished prompt from the server's history (best effort, not awaited). */
  private forget(promptId: string): void {
    const session = this.client.session(AbortSignal.timeout(CLEANUP_MS));
    session
      .request({ method: 'POST', path: '/history', json: { delete: [promptId] }, idempotent: true })
      .catch(() => undefined);
  }
}
