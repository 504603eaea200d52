import { describe, expect, it } from 'vitest';
import { prettyLogLine } from './pretty-log';

const time = '2026-01-02T03:04:05.678Z';
/** The clock as the line shows it: local time of day with milliseconds. */
const local = (() => {
  const date = new Date(time);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.678`;
})();

describe('prettyLogLine', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [
      'context and message',
      { level: 'info', time, service: 'atelier', context: 'Main', msg: 'Atelier API listening on http://x' },
      `${local} INFO  Main: Atelier API listening on http://x\n`,
    ],
    [
      'no context; nested members flattened; strings with spaces quoted',
      { level: 'warn', time, service: 'atelier', request_id: 'r-1', res: { statusCode: 503 }, note: 'a b', msg: 'x' },
      `${local} WARN  x request_id=r-1 res.statusCode=503 note="a b"\n`,
    ],
    [
      'a stack below the line, one frame a line',
      {
        level: 'error',
        time,
        context: 'ErrorWriter',
        msg: 'failed',
        err: { type: 'TypeError', stack: 'TypeError\n    at f (a.js:1:2)' },
      },
      `${local} ERROR ErrorWriter: failed err.type=TypeError\n    err.stack: TypeError\n          at f (a.js:1:2)\n`,
    ],
    [
      'arrays, numbers and booleans as JSON',
      { level: 'debug', time, msg: 'm', ids: [1, 2], ok: true, ms: 1.5 },
      `${local} DEBUG m ids=[1,2] ok=true ms=1.5\n`,
    ],
  ];

  it.each(cases)('%s', (_name, entry, expected) => {
    expect(prettyLogLine(`${JSON.stringify(entry)}\n`, false)).toBe(expected);
  });

  it('colours the level and dims the rest on a terminal, and passes a line that is not JSON unchanged', () => {
    const line = prettyLogLine(JSON.stringify({ level: 'error', time, context: 'C', msg: 'm' }), true);
    expect(line).toBe(`\u001b[2m${local}\u001b[0m \u001b[31mERROR\u001b[0m \u001b[2mC: \u001b[0mm\n`);
    expect(prettyLogLine('not json\n', true)).toBe('not json\n');
  });
});
