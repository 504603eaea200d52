import { intOption, jsonArgument, stringOption, type OptionSpecs, type Values } from './args';
import { usageError } from './exit-codes';

/** The flags `edit` and `batch` share: the operations and the output of the edit request. */
export const EDIT_OPTIONS: OptionSpecs = {
  operations: { type: 'string' },
  width: { type: 'string' },
  height: { type: 'string' },
  fit: { type: 'string' },
  format: { type: 'string' },
  quality: { type: 'string' },
  output: { type: 'string' },
};

type Json = Record<string, unknown>;

/** `--width 300`, `--width 50%`, `--height auto`: numbers as numbers, the rest as the API's strings. */
function sideValue(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^\d+$/.test(value) ? Number(value) : value;
}

function objectMember(parent: Json, name: string, flag: string): Json {
  const value = parent[name] ?? {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw usageError(`--${flag} cannot be combined with ${name} given as ${JSON.stringify(value)} in --operations.`);
  }
  return value as Json;
}

/** `--format F --quality Q` as the output format object: `quality` for jpeg, a lossy `compression` for the others. */
function formatWithQuality(format: string, quality: number): Json {
  if (format === 'jpeg') return { type: format, quality };
  if (['webp', 'avif', 'tiff'].includes(format)) return { type: format, compression: { type: 'lossy', quality } };
  throw usageError(`--quality applies to jpeg, webp, avif and tiff, not ${format}.`);
}

/**
 * The `operations` and `output` members of an edit request: `--operations` (JSON or `@file`), with the shortcut
 * flags laid over it (`--width/--height/--fit` into `resizing`, `--format/--quality` and `--output` into `output`).
 * The service validates the result; nothing here repeats its rules.
 */
export function editMembers(values: Values): { operations?: Json; output?: Json } {
  const given = stringOption(values, 'operations');
  const operations = given === undefined ? {} : jsonArgument(given, 'operations');
  if (operations === null || typeof operations !== 'object' || Array.isArray(operations)) {
    throw usageError('--operations must be a JSON object, like \'{"resizing": {"width": 300}}\'.');
  }
  const ops = { ...(operations as Json) };
  const resize = {
    width: sideValue(stringOption(values, 'width')),
    height: sideValue(stringOption(values, 'height')),
    fit: stringOption(values, 'fit'),
  };
  const resizeGiven = Object.entries(resize).filter(([, value]) => value !== undefined);
  if (resizeGiven.length)
    ops.resizing = { ...objectMember(ops, 'resizing', resizeGiven[0][0]), ...Object.fromEntries(resizeGiven) };
  const output: Json = {};
  const destination = stringOption(values, 'output');
  if (destination !== undefined) output.destination = destination;
  const format = stringOption(values, 'format');
  const quality = intOption(values, 'quality', 1, 100);
  if (quality !== undefined && format === undefined)
    throw usageError('--quality needs --format (the format it applies to).');
  if (format !== undefined) output.format = quality === undefined ? format : formatWithQuality(format, quality);
  return {
    ...(Object.keys(ops).length ? { operations: ops } : {}),
    ...(Object.keys(output).length ? { output } : {}),
  };
}
