import { Piscina } from 'piscina';
import {
  builtWorkerFile,
  modelBusyRefusals,
  modelInferenceDuration,
  modelLoadDuration,
  ServiceException,
} from '@app/common';
import { ModelFileError, verifyModelFile, type ModelFile } from './model-file';

/**
 * A model's state as /health/ready reports it: `not_installed` (its file is missing or fails its checksum),
 * `not_loaded` (verified, loads at its first use), `loading` (loading and warming up), `loaded`, `failed` (the
 * runtime refused it: every use answers 501 with the reason).
 */
export type ModelState = 'not_installed' | 'not_loaded' | 'loading' | 'loaded' | 'failed';

/** The worker thread a model runs on: one file per runtime (onnx.worker.ts, ...), found once built. */
export interface ModelWorker {
  /** The folder of the worker's source (its caller's `__dirname`): builtWorkerFile looks there, then in dist. */
  dir: string;
  /** The worker's file name without extension, e.g. `onnx.worker`. */
  name: string;
}

export interface ModelRunnerOptions<Job extends object> {
  /** Shown in messages, logs and /health/ready. */
  name: string;
  /** Every file the model loads (weights, graph), each verified by SHA-256 before the first load. */
  files: readonly ModelFile[];
  worker: ModelWorker;
  /** How the worker makes the model (paths, threads, execution provider): sent with every job. */
  session: object;
  /** Inferences that may wait behind the running one before 503 MODEL_BUSY. */
  queueLimit: number;
  /** The job of the warm-up inference, run once at load (the first runs are several times slower). */
  warmUp: () => Job;
}

/**
 * One model's lifecycle, the same for every model: verify (SHA-256 of the file, once, for /health/ready) -> load
 * (lazily, at the first use, once: the worker hashes the bytes it loads, readVerifiedModelFile) -> warm (one
 * inference at load) -> run. Inference runs on the model's own worker thread,
 * one at a time, with at most `queueLimit` waiting.
 */
export class ModelRunner<Job extends object = object> {
  private verified?: Promise<void>;
  private problem?: string;
  private loading?: Promise<void>;
  private pool?: Piscina;
  private pending = 0;
  private current: ModelState = 'not_loaded';

  constructor(private readonly options: ModelRunnerOptions<Job>) {}

  get name(): string {
    return this.options.name;
  }

  get state(): ModelState {
    return this.current;
  }

  /** Why the model cannot run (file or runtime), naming the file; undefined while it can. */
  get reason(): string | undefined {
    return this.problem;
  }

  /** Checks the files once (later calls share the first answer); false when one is missing or wrong. */
  async verify(): Promise<boolean> {
    this.verified ??= Promise.all(this.options.files.map(verifyModelFile))
      .then(() => undefined)
      .catch((error: unknown) => {
        this.current = 'not_installed';
        this.problem = error instanceof ModelFileError ? error.message : String(error);
        throw error;
      });
    return this.verified.then(
      () => true,
      () => false,
    );
  }

  /**
   * Runs `job` on the model, loading it first if needed. Rejects with 503 MODEL_BUSY (Retry-After) when the
   * queue is full, 501 OPERATION_NOT_IMPLEMENTED naming the file when the model cannot be loaded, 500 naming the
   * model when it fails on this input. The buffers of `transferList` move to the worker without a copy (and are
   * unusable here afterwards).
   */
  async run<R>(job: Job, transferList?: ArrayBuffer[]): Promise<R> {
    if (this.pending > this.options.queueLimit) {
      modelBusyRefusals.inc({ model: this.name });
      throw new ServiceException(
        'MODEL_BUSY',
        `The ${this.name} model is busy: ${this.pending} inferences are running or waiting; retry shortly.`,
        {},
        { 'Retry-After': '1' },
      );
    }
    this.pending++;
    try {
      await this.load();
      const started = performance.now();
      let outcome = 'error';
      try {
        const result = (await this.pool!.run({ session: this.options.session, ...job }, { transferList })) as R;
        outcome = 'ok';
        return result;
      } finally {
        modelInferenceDuration.observe({ model: this.name, outcome }, (performance.now() - started) / 1000);
      }
    } catch (error) {
      if (error instanceof ServiceException) throw error;
      throw this.failedOn(error);
    } finally {
      this.pending--;
    }
  }

  /** Verifies, loads and warms the model once; later calls wait for the same load. */
  load(): Promise<void> {
    if (!this.loading) {
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      this.loading = this.loadOnce();
      this.loading.then(
        () => modelLoadDuration.observe({ model: this.name, outcome: 'loaded' }, seconds()),
        () => modelLoadDuration.observe({ model: this.name, outcome: 'failed' }, seconds()),
      );
    }
    return this.loading;
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = undefined;
  }

  private async loadOnce(): Promise<void> {
    if (!(await this.verify())) throw this.unavailable();
    this.current = 'loading';
    // one thread that lives as long as the process: it holds the loaded session
    this.pool = new Piscina({
      filename: builtWorkerFile(this.options.worker.dir, this.options.worker.name),
      minThreads: 1,
      maxThreads: 1,
      idleTimeout: Infinity,
    });
    try {
      await this.pool.run({ session: this.options.session, ...this.options.warmUp() });
      this.current = 'loaded';
    } catch (error) {
      await this.close();
      // The worker loads the bytes it hashed: a file replaced since verify() is refused there, and said so here.
      const changed = await this.changedFile();
      this.current = changed ? 'not_installed' : 'failed';
      const paths = this.options.files.map((file) => file.path).join(', ');
      this.problem = changed?.message ?? `model file ${paths}: the runtime cannot load or run it (${String(error)})`;
      throw this.unavailable();
    }
  }

  /** The first of the model's files that no longer verifies, if any. */
  private async changedFile(): Promise<ModelFileError | undefined> {
    for (const file of this.options.files) {
      const problem = await verifyModelFile(file).then(
        () => undefined,
        (error: unknown) => error,
      );
      if (problem instanceof ModelFileError) return problem;
    }
    return undefined;
  }

  /**
   * The worker's own failure on one input (the runtime's error, out of memory in WASM): that edit fails, said
   * plainly and not retried (the same input would fail again); the model stays loaded for the next one.
   */
  private failedOn(error: unknown): ServiceException {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    return new ServiceException(
      'INTERNAL',
      `The ${this.name} model failed on this image: ${reason}`,
      {},
      {},
      { retryable: false },
    );
  }

  private unavailable(): ServiceException {
    return new ServiceException(
      'OPERATION_NOT_IMPLEMENTED',
      `The ${this.name} model cannot run on this service: ${this.problem ?? 'unknown reason'}.`,
    );
  }
}
