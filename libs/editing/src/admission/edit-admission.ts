import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig, editStageDuration, recordSpan, ServiceException } from '@app/common';
import { AdmissionGate, editBusy, type Permit } from './admission-gate';

/** Slack for the multipart framing around an upload's file and `data` parts, in bytes. */
const MULTIPART_FRAMING_BYTES = 64 * 1024;
const MIB = 1024 * 1024;

/**
 * Input bytes one request holds in memory: the first {@link reserve} waits its turn in the input budget,
 * later ones (a body longer than declared, or one of unknown length) grow the hold at once or fail with 503.
 */
export class InputHold {
  private permit?: Permit;
  private pending?: Promise<Permit>;

  constructor(
    private readonly gate: AdmissionGate,
    private readonly holder: string,
  ) {}

  /** Holds `total` bytes from now on (the running total, not an increment). */
  readonly reserve = async (total: number): Promise<void> => {
    if (this.permit) return this.permit.grow(total);
    this.pending ??= this.gate.acquire(this.holder, total);
    this.permit = await this.pending;
    this.permit.grow(total);
  };

  /** Gives the bytes back (safe to call more than once, and before anything was held). */
  release(): void {
    this.permit?.release();
    this.pending?.then((permit) => permit.release()).catch(() => undefined);
  }
}

/**
 * What one process admits, in two budgets that cannot wait on each other (a request first holds its input,
 * then waits for pixel work, never the other way round):
 *
 * - inputs: bytes of input images held in memory (downloads, storage objects, uploads), EDIT_INPUT_BYTES.
 *   Waiting for an origin's bytes holds only the bytes that arrived (or were declared), never a pixel slot;
 * - pixels: EDIT_CONCURRENCY edits at once within EDIT_MEMORY_BYTES, estimated from each image's header.
 *
 * Each account (the holder: editCaller) may hold at most EDIT_KEY_SHARE percent of each budget; at most EDIT_QUEUE_LIMIT requests wait
 * for each, then 503 EDIT_BUSY.
 */
@Injectable()
export class EditAdmission {
  readonly inputs: AdmissionGate;
  readonly pixels: AdmissionGate;
  private readonly logger = new Logger(EditAdmission.name);

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {
    const share = (bytes: number) => Math.max(1, Math.floor((bytes * config.editKeySharePercent) / 100));
    this.inputs = new AdmissionGate({
      capacity: config.editInputBytes,
      slots: Infinity,
      holderCapacity: share(config.editInputBytes),
      queueLimit: config.editQueueLimit,
      name: 'inputs',
    });
    this.pixels = new AdmissionGate({
      capacity: config.editMemoryBytes,
      slots: config.editConcurrency,
      holderCapacity: share(config.editMemoryBytes),
      queueLimit: config.editQueueLimit,
      name: 'pixels',
    });
  }

  /** A hold on input bytes for `holder`, to pass to the reader of a download or a storage object. */
  inputHold(holder: string): InputHold {
    return new InputHold(this.inputs, holder);
  }

  /**
   * Admits an upload before its body is read: `declared` is the request's Content-Length (undefined when
   * chunked), held as it is, up to the most an upload can keep (FETCH_MAX_BYTES and the `data` part). A
   * refusal is 503 with `Connection: close`, so that the unread body is not read to keep the connection.
   */
  async admitUpload(holder: string, declared: number | undefined): Promise<InputHold> {
    const refusal = () => editBusy(undefined, { Connection: 'close' });
    if (this.pixels.full) {
      this.pixels.countRefusal();
      throw refusal();
    }
    const most = this.config.fetchMaxBytes + this.config.maxJsonBodyBytes + MULTIPART_FRAMING_BYTES;
    const hold = this.inputHold(holder);
    try {
      await hold.reserve(Math.min(declared ?? most, most));
    } catch (error) {
      hold.release();
      throw error instanceof ServiceException && error.codeName === 'EDIT_BUSY' ? refusal() : error;
    }
    return hold;
  }

  /**
   * Runs pixel work once `bytes` (its estimated peak memory) fit, with a slot free; `label` names the image
   * in the debug line that tells how full the budget is.
   */
  async runPixels<T>(
    holder: string,
    bytes: number,
    label: string,
    work: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const permit = await this.pixels.acquire(holder, bytes, signal);
    editStageDuration.observe({ stage: 'pixel_wait' }, permit.waitedMs / 1000);
    recordSpan('edit.pixel_wait', permit.waitedMs);
    try {
      const { held, permits } = this.pixels.state;
      this.logger.debug(
        `pixel work admitted (${label}, estimated ${mib(bytes)} MiB): ${permits} in progress, ` +
          `${mib(held)} of ${mib(this.config.editMemoryBytes)} MiB held, waited ${Math.round(permit.waitedMs)} ms`,
      );
      return await work();
    } finally {
      permit.release();
    }
  }
}

function mib(bytes: number): string {
  return (bytes / MIB).toFixed(1);
}
