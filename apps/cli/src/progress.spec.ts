import { describe, expect, it } from 'vitest';
import { formatProgressLine, ProgressView, rateAndEta } from './progress';

const progress = (done: number, failed: number, total: number, retrying = 0) => ({ done, failed, total, retrying });

describe('rateAndEta', () => {
  it.each([
    // finished now, finished when watching began, elapsed ms -> items/s, seconds left
    [progress(10, 0, 30), 0, 2000, 5, 4],
    [progress(8, 2, 30), 4, 3000, 2, 10],
    [progress(30, 0, 30), 10, 4000, 5, 0],
  ])('%o from %i over %i ms: %f items/s, %f s left', (state, atStart, elapsed, rate, left) => {
    expect(rateAndEta(state, atStart, elapsed)).toEqual({ rate, secondsLeft: left });
  });

  it('has none before an item finished while watching', () => {
    expect(rateAndEta(progress(5, 0, 30), 5, 3000)).toBeUndefined();
    expect(rateAndEta(progress(0, 0, 30), 0, 0)).toBeUndefined();
  });
});

describe('formatProgressLine', () => {
  it('shows counts, a bar filled by the finished share, the rate and the time left', () => {
    const line = formatProgressLine({ id: 42, status: 'PROCESSING', progress: progress(12, 3, 30, 1) }, 0, 5000, 200);
    expect(line).toBe(
      `Task 42 PROCESSING [${'#'.repeat(20)}${'-'.repeat(20)}] 15/30 (12 done, 3 failed, 1 retrying)  3.0 items/s  ~5s left`,
    );
  });

  it('writes minutes and hours for long waits, and no time left once final', () => {
    expect(formatProgressLine({ id: 1, status: 'PROCESSING', progress: progress(1, 0, 601) }, 0, 1000, 200)).toContain(
      '~10m00s left',
    );
    expect(formatProgressLine({ id: 1, status: 'PROCESSING', progress: progress(1, 0, 7201) }, 0, 1000, 200)).toContain(
      '~2h00m left',
    );
    const done = formatProgressLine({ id: 1, status: 'DONE', progress: progress(4, 0, 4) }, 0, 2000, 200);
    expect(done).toMatch(/\[#+\] 4\/4 \(4 done, 0 failed\) {2}2\.0 items\/s$/);
  });

  it('fits a narrow terminal with a bar of at least 10, and an empty bar for a folder not listed yet', () => {
    const line = formatProgressLine({ id: 7, status: 'ACCEPTED', progress: progress(0, 0, 0) }, 0, 100, 60);
    expect(line.length).toBeLessThanOrEqual(60);
    expect(line).toMatch(/^Task 7 ACCEPTED \[-{10,}\] 0\/0/);
  });
});

/** A stream that records what was written. */
function recorder(isTTY: boolean) {
  const chunks: string[] = [];
  const stream = { isTTY, columns: 100, write: (chunk: string) => chunks.push(chunk) > 0 };
  return { chunks, streams: { out: stream as never, err: stream as never } };
}

describe('ProgressView', () => {
  it('redraws one line in place on a terminal and ends it with a newline', () => {
    const { chunks, streams } = recorder(true);
    const view = new ProgressView(streams);
    view.update({ id: 1, status: 'PROCESSING', progress: progress(1, 0, 2) });
    view.update({ id: 1, status: 'PROCESSING', progress: progress(1, 0, 2) });
    view.update({ id: 1, status: 'DONE', progress: progress(2, 0, 2) });
    view.end();
    expect(chunks).toHaveLength(4);
    for (const chunk of chunks.slice(0, 3)) expect(chunk.startsWith('\r\x1b[2KTask 1 ')).toBe(true);
    expect(chunks[3]).toBe('\n');
  });

  it('writes one plain line per change without a terminal', () => {
    const { chunks, streams } = recorder(false);
    const view = new ProgressView(streams);
    view.update({ id: 1, status: 'ACCEPTED', progress: progress(0, 0, 2) });
    view.update({ id: 1, status: 'ACCEPTED', progress: progress(0, 0, 2) });
    view.update({ id: 1, status: 'PROCESSING', progress: progress(1, 0, 2) });
    view.update({ id: 1, status: 'PROCESSING', progress: progress(1, 0, 2) });
    view.end();
    expect(chunks.map((chunk) => chunk.split(' ').slice(0, 3).join(' '))).toEqual([
      'Task 1 ACCEPTED',
      'Task 1 PROCESSING',
    ]);
    for (const chunk of chunks) expect(chunk).toMatch(/^[^\r\x1b]*\n$/);
  });
});
