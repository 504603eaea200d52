/** Where a command writes: stdout for results, stderr for progress and messages. */
export interface Streams {
  out: NodeJS.WritableStream & { isTTY?: boolean };
  err: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

export function printJson(streams: Streams, value: unknown): void {
  streams.out.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(streams: Streams, line = ''): void {
  streams.out.write(`${line}\n`);
}

/** A plain text table: a header row and aligned columns (no colours, so it pipes cleanly). */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** `value` for a table cell: `-` for null or absent. */
export const cell = (value: unknown): string =>
  value === null || value === undefined || value === '' ? '-' : Array.isArray(value) ? value.join(',') : String(value);

/** "page 2 of 5 (93 in all)" for a paged answer. */
export function pageLine(page: { page: number; per_page: number; total: number }): string {
  const pages = Math.max(1, Math.ceil(page.total / page.per_page));
  return `page ${page.page} of ${pages} (${page.total} in all)`;
}
