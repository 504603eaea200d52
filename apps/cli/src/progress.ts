import type { Streams } from './output';

/** A task status that does not change any more. */
export const isFinal = (status: string) => status === 'DONE' || status === 'ERROR' || status === 'CANCELLED';

/** A task's counts as the API gives them (`progress`). */
export interface Progress {
  total: number;
  done: number;
  failed: number;
  retrying: number;
  /** On a CANCELLED task: its items that had not ended when it was cancelled. */
  cancelled?: number;
}

export interface ProgressState {
  id: number | string;
  status: string;
  progress: Progress;
}

const formatSeconds = (seconds: number) =>
  seconds >= 3600
    ? `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`
    : seconds >= 60
      ? `${Math.floor(seconds / 60)}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`
      : `${Math.round(seconds)}s`;

/**
 * Items per second and seconds left, from the items finished since watching began (`finishedAtStart` of them
 * were finished then) over `elapsedMs`; undefined until one has finished.
 */
export function rateAndEta(progress: Progress, finishedAtStart: number, elapsedMs: number) {
  const finished = progress.done + progress.failed;
  const rate = elapsedMs > 0 ? ((finished - finishedAtStart) * 1000) / elapsedMs : 0;
  if (rate <= 0) return undefined;
  return { rate, secondsLeft: Math.max(0, progress.total - finished) / rate };
}

/**
 * One line of the progress display, at most `width` characters:
 * `Task 42 PROCESSING [#########-------] 12/30 done, 1 failed  3.2 items/s  ~6s left`.
 */
export function formatProgressLine(
  state: ProgressState,
  finishedAtStart: number,
  elapsedMs: number,
  width: number,
): string {
  const { done, failed, total, retrying } = state.progress;
  const counts = `${done + failed}/${total} (${done} done, ${failed} failed${retrying ? `, ${retrying} retrying` : ''})`;
  const speed = rateAndEta(state.progress, finishedAtStart, elapsedMs);
  const final = isFinal(state.status);
  const timing = speed
    ? `  ${speed.rate.toFixed(1)} items/s${final ? '' : `  ~${formatSeconds(speed.secondsLeft)} left`}`
    : final
      ? ''
      : '  -- items/s';
  const head = `Task ${state.id} ${state.status} `;
  const tail = ` ${counts}${timing}`;
  const barWidth = Math.max(10, Math.min(40, width - head.length - tail.length - 2));
  const filled = total > 0 ? Math.round(((done + failed) / total) * barWidth) : 0;
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}]`;
  return `${head}${bar}${tail}`.slice(0, Math.max(width, 20));
}

/**
 * Shows a task's progress on stderr: on a terminal one line redrawn in place; otherwise one line per change of
 * status or counts, so logs stay readable.
 */
export class ProgressView {
  private started = Date.now();
  private finishedAtStart: number | undefined;
  private last = '';
  private drawn = false;

  constructor(private readonly streams: Streams) {}

  private get terminal(): boolean {
    return this.streams.err.isTTY === true;
  }

  update(state: ProgressState): void {
    this.finishedAtStart ??= state.progress.done + state.progress.failed;
    const key = `${state.status} ${JSON.stringify(state.progress)}`;
    const width = (this.streams.err.columns || 100) - 1;
    const line = formatProgressLine(state, this.finishedAtStart, Date.now() - this.started, width);
    if (this.terminal) {
      this.streams.err.write(`\r\x1b[2K${line}`);
      this.drawn = true;
    } else if (key !== this.last) {
      this.streams.err.write(`${line}\n`);
    }
    this.last = key;
  }

  /** Ends the redrawn line so that what follows starts on its own. */
  end(): void {
    if (this.drawn) this.streams.err.write('\n');
    this.drawn = false;
  }
}
