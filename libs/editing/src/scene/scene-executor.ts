import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig, sceneStageDuration, ServiceException } from '@app/common';
import { estimateSceneMemory, ImagePipeline, type SceneSource } from '@app/image-pipeline';
import { EditAdmission } from '../admission/edit-admission';
import { AdmissionGate } from '../admission/admission-gate';
import { generatorAnswerLimits, type EditCaller } from '../edit-executor';
import { toImageError } from '../image-errors';
import { imageInfo, type ImageInfo, type OutputImageInfo } from '../image-info';
import { promptNotDrawn, type EditNotice } from '../notices';
import { SourceLoader, type EditSource } from '../inputs/source-loader';
import { ModelCapabilities } from '../model-capabilities';
import { ResultWriter } from '../results/result-writer';
import { planScene } from './scene-planner';
import type { SceneRequest } from './scene-request';

/**
 * The scene response's `data`. `profiling`: milliseconds per stage, the backend, and what it reported. `notices`:
 * what was asked and not drawn (absent when everything was).
 */
export interface SceneResult {
  input: ImageInfo;
  output: OutputImageInfo[];
  profiling: Record<string, number | string | Record<string, number | string>>;
  notices?: EditNotice[];
}

function sceneBusy(): ServiceException {
  return new ServiceException('SCENE_BUSY', undefined, {}, { 'Retry-After': '2' });
}

function sceneTimeout(limitMs: number): ServiceException {
  return new ServiceException(
    'SCENE_TIMEOUT',
    `The scene was not ready within ${Math.round(limitMs / 1000)} s (SCENE_TIMEOUT_MS); retry, or ask for fewer images.`,
  );
}

/**
 * The scenes one process creates at once: SCENE_CONCURRENCY, within the edit memory budget (EDIT_MEMORY_BYTES)
 * as estimated from the object's header and the canvas; SCENE_QUEUE_LIMIT more wait, then 503 SCENE_BUSY. A gate
 * of its own: a scene takes seconds, and must not hold the edits' slots.
 */
@Injectable()
export class SceneAdmission {
  readonly gate: AdmissionGate;

  constructor(@Inject(AppConfig) config: AppConfig) {
    const { sceneConcurrency, sceneQueueLimit } = config.generative;
    this.gate = new AdmissionGate({
      capacity: config.editMemoryBytes,
      slots: sceneConcurrency,
      holderCapacity: Math.max(1, Math.floor((config.editMemoryBytes * config.editKeySharePercent) / 100)),
      queueLimit: sceneQueueLimit,
      refusal: sceneBusy,
      name: 'scene',
    });
  }
}

/**
 * `POST /v1/scene/create` end to end: the destination checked first, then the object (and template) read like
 * edit inputs, their headers checked, the scene planned, its pixel work admitted by the scene gate, the images
 * made by the pipeline through the generative port, and written through the one ResultWriter. The whole request
 * is bounded by SCENE_TIMEOUT_MS (504 SCENE_TIMEOUT).
 */
@Injectable()
export class SceneExecutor {
  private readonly logger = new Logger(SceneExecutor.name);

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly pipeline: ImagePipeline,
    private readonly sources: SourceLoader,
    private readonly results: ResultWriter,
    private readonly admission: EditAdmission,
    private readonly scenes: SceneAdmission,
    private readonly capabilities: ModelCapabilities,
  ) {}

  /**
   * The scene within SCENE_TIMEOUT_MS: past it the client gets 504 SCENE_TIMEOUT at once, and the work still under
   * way stops at its next stage (no result is written after the limit; its holds are released when it ends).
   * `gone`: aborted when the client has gone; the work stops the same way (a generator call at once).
   */
  async create(caller: EditCaller, request: SceneRequest, gone?: AbortSignal): Promise<SceneResult> {
    if (!this.capabilities.available('generative')) {
      throw new ServiceException(
        'OPERATION_NOT_IMPLEMENTED',
        'Scene creation needs a generative backend, and none is configured on this service (GENERATIVE_BACKEND=none).',
      );
    }
    const limitMs = this.config.generative.sceneTimeoutMs;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const reason = sceneTimeout(limitMs);
        controller.abort(reason);
        this.logger.warn(`scene stopped after ${limitMs} ms (SCENE_TIMEOUT_MS)`);
        reject(reason);
      }, limitMs);
    });
    const leave = () => controller.abort(gone?.reason);
    if (gone?.aborted) leave();
    else gone?.addEventListener('abort', leave, { once: true });
    const work = this.run(caller, request, controller.signal);
    try {
      return await Promise.race([work, limit]);
    } finally {
      gone?.removeEventListener('abort', leave);
      clearTimeout(timer);
      work.catch(() => undefined);
    }
  }

  private async run(caller: EditCaller, request: SceneRequest, signal: AbortSignal): Promise<SceneResult> {
    const started = performance.now();
    const { accountId, holder } = caller;
    const destination = await this.results.destination(
      accountId,
      request.output.destination,
      request.output.format.type,
    );
    const hold = this.admission.inputHold(holder);
    const stages: Record<string, number> = {};
    try {
      const fetchStarted = performance.now();
      const template = request.scene.kind === 'template' ? request.scene.templateUrl : undefined;
      const [object, backdrop] = await Promise.all([
        this.sources.load(accountId, request.object.imageUrl, hold.reserve, 'object.image_url'),
        template === undefined ? undefined : this.sources.load(accountId, template, hold.reserve, 'scene.template_url'),
      ]);
      stages.fetch = Math.round(performance.now() - fetchStarted);
      const objectSource = await this.source(object, 'object.image_url');
      const templateSource = backdrop && (await this.source(backdrop, 'scene.template_url'));
      const plan = planScene(request, objectSource.probe);
      const memory = estimateSceneMemory(objectSource.probe, plan, {
        template: templateSource?.probe,
        answer: generatorAnswerLimits(this.config),
      });
      const queued = performance.now();
      signal.throwIfAborted();
      const permit = await this.scenes.gate.acquire(holder, memory, signal);
      stages.queue = Math.round(performance.now() - queued);
      let outcome;
      try {
        signal.throwIfAborted();
        outcome = await this.pipeline.createScene(objectSource, templateSource, plan, signal);
      } catch (error) {
        throw signal.aborted ? signal.reason : toImageError(error, 'object.image_url');
      } finally {
        permit.release();
      }
      hold.release();
      const written = performance.now();
      const base = `${baseOf(object.name)}-scene-${randomBytes(4).toString('hex')}`;
      const output: OutputImageInfo[] = [];
      for (const [index, image] of outcome.images.entries()) {
        // nothing is written once the client has had its 504
        signal.throwIfAborted();
        // several images go to a folder (the parser made sure): each its own generated, unique name
        output.push(await this.results.write(image, destination, `${base}-${index + 1}`));
      }
      Object.assign(stages, outcome.stages, { write: Math.round(performance.now() - written) });
      for (const [stage, ms] of Object.entries(stages)) sceneStageDuration.observe({ stage }, ms / 1000);
      const probe = objectSource.probe;
      const ignored = outcome.details.ignored;
      const field = plan.generation.generate ? 'scene.prompt.guidelines' : 'scene.prompt';
      return {
        input: imageInfo(probe.format, probe.displayWidth, probe.displayHeight),
        output,
        ...(typeof ignored === 'string' && ignored.length > 0 && { notices: [promptNotDrawn(field, ignored)] }),
        profiling: {
          ...stages,
          total: Math.round(performance.now() - started),
          backend: outcome.backend,
          details: outcome.details,
        },
      };
    } finally {
      hold.release();
    }
  }

  private async source(source: EditSource, field: string): Promise<SceneSource> {
    try {
      return { bytes: source.bytes, probe: await this.pipeline.probe(source.bytes) };
    } catch (error) {
      throw toImageError(error, field);
    }
  }
}

/** `bottle.png` -> `bottle`. */
function baseOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot > 0 ? name.slice(0, dot) : name).slice(0, 100);
}
