import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommand } from './args';
import { editMembers, EDIT_OPTIONS } from './edit-request';
import { CliError, EXIT } from './exit-codes';

const members = (...args: string[]) => editMembers(parseCommand(args, EDIT_OPTIONS).values);

describe('editMembers', () => {
  it.each([
    [[], {}],
    [['--width', '300'], { operations: { resizing: { width: 300 } } }],
    [
      ['--width', '50%', '--height', 'auto', '--fit', 'bounds'],
      { operations: { resizing: { width: '50%', height: 'auto', fit: 'bounds' } } },
    ],
    [['--format', 'webp'], { output: { format: 'webp' } }],
    [['--format', 'jpeg', '--quality', '80'], { output: { format: { type: 'jpeg', quality: 80 } } }],
    [
      ['--format', 'webp', '--quality', '60'],
      { output: { format: { type: 'webp', compression: { type: 'lossy', quality: 60 } } } },
    ],
    [['--output', 'storage://out/x/'], { output: { destination: 'storage://out/x/' } }],
    [
      ['--operations', '{"resizing": {"width": 10, "fit": "cover"}, "adjustments": {"hdr": 50}}', '--width', '20'],
      { operations: { resizing: { width: 20, fit: 'cover' }, adjustments: { hdr: 50 } } },
    ],
  ])('%j -> %j', (args, expected) => {
    expect(members(...(args as string[]))).toEqual(expected);
  });

  it('reads --operations from @file', () => {
    const file = join(tmpdir(), `atelier-ops-${process.pid}.json`);
    writeFileSync(file, '{"restorations": {"decompress": "auto"}}');
    expect(members('--operations', `@${file}`)).toEqual({ operations: { restorations: { decompress: 'auto' } } });
  });

  it.each([
    [['--operations', '{"resizing": '], /--operations is not valid JSON/],
    [['--operations', '[1]'], /--operations must be a JSON object/],
    [['--operations', '@/no/such/ops.json'], /cannot read \/no\/such\/ops.json: ENOENT/],
    [['--quality', '80'], /--quality needs --format/],
    [['--format', 'png', '--quality', '80'], /--quality applies to jpeg, webp, avif and tiff, not png/],
    [['--format', 'jpeg', '--quality', '101'], /--quality must be a whole number from 1 to 100/],
    [['--operations', '{"resizing": "big"}', '--width', '3'], /--width cannot be combined with resizing/],
  ])('%j is a usage error (exit 2)', (args, message) => {
    let error: unknown;
    try {
      members(...(args as string[]));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe(EXIT.USAGE);
    expect((error as CliError).message).toMatch(message);
  });
});
