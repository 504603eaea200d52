import { ValidateBy, type ValidationOptions } from 'class-validator';
import { parseStorageReference, STORAGE_SCHEME } from '@app/storage';

/**
 * The value grammars of the edit request (sizes, side lengths, colours, locations) and the class-validator
 * rules built on them. Each grammar is one function that returns the parsed value or the reason it is not one,
 * so the DTO rule and the normaliser can never disagree.
 */

/**
 * Largest `width`/`height` in pixels: 16383 is WebP's limit, the tightest of the output formats (JPEG allows
 * 65535, PNG, TIFF and AVIF more), so every size accepted here can be written in every output format.
 */
export const MAX_DIMENSION_PX = 16383;
/** Largest percentage for `width`/`height`: 1000% (ten times the input side), far beyond any useful upscale. */
export const MAX_SIZE_PERCENT = 1000;
/** Padding, `outpaint_by` and `feathering` percentages: the contract caps each at half of the image side. */
export const MAX_SIDE_PERCENT = 50;
/**
 * Pixel values of padding and `outpaint_by`: 65535 (JPEG's largest side) bounds the syntax; the real rule,
 * at most 50% of the image side, needs the image and is checked when its size is known.
 */
export const MAX_SIDE_PX = 65535;
/** `input`: the contract's 1..512 characters for the image edit. */
export const INPUT_MAX_LENGTH = 512;
/** Output destinations and the style reference image: the contract's URI schema length, 1..4096. */
export const LOCATION_MAX_LENGTH = 4096;

export type Parsed<T> = { value: T } | { error: string };

/** `width`/`height`: pixels, a percentage of the input side, or `auto` (follow the other side). */
export type Size = { kind: 'px'; value: number } | { kind: 'percent'; value: number } | { kind: 'auto' };

/** Lengths added on each side, all in one unit; percentages are of the image width (left, right) or height. */
export interface SideLengths {
  unit: 'px' | 'percent';
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/** An opaque colour, channels 0..255, or transparency. */
export type Colour = { kind: 'rgb'; r: number; g: number; b: number } | { kind: 'transparent' };

const PERCENT = /^(\d{1,4}(?:\.\d{1,3})?)%$/;
const PIXELS = /^(\d{1,6})px$/;
const HEX = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;

export const SIZE_RULE = `an integer from 1 to ${MAX_DIMENSION_PX} (pixels), "auto", or a percentage such as "50%" (above 0%, at most ${MAX_SIZE_PERCENT}%)`;
export const SIDES_RULE = `"N%" or "N% M%" (each at most ${MAX_SIDE_PERCENT}%), or "Npx" or "Npx Mpx" (whole pixels); with two values the first is horizontal, the second vertical`;
export const PADDING_RULE = `${SIDES_RULE}; or four pixel values "Tpx Rpx Bpx Lpx"`;

/** `"15%"` -> 15; `max` inclusive. */
export function parsePercent(value: unknown, max: number): Parsed<number> {
  const match = typeof value === 'string' ? PERCENT.exec(value) : null;
  if (!match) return { error: 'must be a percentage such as "15%"' };
  const percent = Number(match[1]);
  return percent > max ? { error: `must be at most ${max}%` } : { value: percent };
}

export function parseSize(value: unknown): Parsed<Size> {
  if (value === 'auto') return { value: { kind: 'auto' } };
  if (typeof value === 'number') {
    return Number.isInteger(value) && value >= 1 && value <= MAX_DIMENSION_PX
      ? { value: { kind: 'px', value } }
      : { error: `must be ${SIZE_RULE}` };
  }
  const percent = parsePercent(value, MAX_SIZE_PERCENT);
  if ('error' in percent || percent.value === 0) return { error: `must be ${SIZE_RULE}` };
  return { value: { kind: 'percent', value: percent.value } };
}

function parseLength(token: string): { unit: SideLengths['unit']; value: number } | undefined {
  const percent = PERCENT.exec(token);
  if (percent) return { unit: 'percent', value: Number(percent[1]) };
  const pixels = PIXELS.exec(token);
  return pixels ? { unit: 'px', value: Number(pixels[1]) } : undefined;
}

/**
 * The grammar shared by `padding` and `outpaint_by`: `N%`, `N% M%`, `Npx`, `Npx Mpx` (first horizontal, second
 * vertical) and, where `allowFour`, `Tpx Rpx Bpx Lpx`. Percentages are checked against the 50% cap here;
 * pixels only against {@link MAX_SIDE_PX}, since their 50% rule needs the image size.
 */
export function parseSideLengths(value: unknown, allowFour: boolean): Parsed<SideLengths> {
  const rule = allowFour ? PADDING_RULE : SIDES_RULE;
  if (typeof value !== 'string') return { error: `must be a string: ${rule}` };
  const lengths = value.split(' ').map(parseLength);
  const [first] = lengths;
  const count = lengths.length;
  if (!first || lengths.some((length) => !length || length.unit !== first.unit)) {
    return { error: `must be ${rule}` };
  }
  if (count === 3 || count > 4 || (count === 4 && (!allowFour || first.unit !== 'px'))) {
    return { error: `must be ${rule}` };
  }
  const values = lengths.map((length) => length!.value);
  const max = first.unit === 'percent' ? MAX_SIDE_PERCENT : MAX_SIDE_PX;
  if (values.some((length) => length > max)) {
    return { error: `each value must be at most ${first.unit === 'percent' ? `${max}%` : `${max}px`}` };
  }
  const [top, right, bottom, left] =
    count === 1
      ? [values[0], values[0], values[0], values[0]]
      : count === 2
        ? [values[1], values[0], values[1], values[0]]
        : values;
  return { value: { unit: first.unit, top, right, bottom, left } };
}

/** `#rgb`, `#rrggbb` (any case) or `transparent`. */
export function parseColour(value: unknown): Parsed<Colour> {
  if (value === 'transparent') return { value: { kind: 'transparent' } };
  const match = typeof value === 'string' ? HEX.exec(value) : null;
  if (!match) return { error: 'must be a hexadecimal colour "#rgb" or "#rrggbb", or "transparent"' };
  const hex = match[1].length === 3 ? [...match[1]].map((digit) => digit + digit).join('') : match[1];
  const channel = (index: number) => parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return { value: { kind: 'rgb', r: channel(0), g: channel(1), b: channel(2) } };
}

/**
 * An image location: an `http(s)` URL or a `storage://<name>/<path>` reference, syntax only (whether the storage
 * exists and the address may be fetched is decided when it is used). `folder: 'refuse'` for a single file.
 */
export function checkLocation(value: unknown, maxLength: number, folder: 'allow' | 'refuse'): string | undefined {
  const rule = `must be an http(s) URL or a storage reference ${STORAGE_SCHEME}<storage_name>/<path>`;
  if (typeof value !== 'string' || value.length === 0) return rule;
  if (value.length > maxLength) return `must be at most ${maxLength} characters long`;
  if (value.startsWith(STORAGE_SCHEME)) {
    const reference = parseStorageReference(value);
    if ('error' in reference) return `is not a valid storage reference: ${reference.error}`;
    return reference.isFolder && folder === 'refuse' ? 'must name a file, not a folder' : undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return rule;
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.hostname === '' || /\s/.test(value)) return rule;
  return undefined;
}

/** A class-validator rule from a predicate; `$property` in the message is the member's name. */
function rule(name: string, validate: (value: unknown) => string | undefined, options?: ValidationOptions) {
  return ValidateBy(
    {
      name,
      validator: {
        validate: (value: unknown) => validate(value) === undefined,
        defaultMessage: (args) => `$property ${validate(args?.value) ?? 'is invalid'}`,
      },
    },
    options,
  );
}

/** An integer in `min..max`, one message for every way to miss it. */
export const IsIntegerIn = (min: number, max: number) =>
  rule('isIntegerIn', (value) =>
    Number.isInteger(value) && (value as number) >= min && (value as number) <= max
      ? undefined
      : `must be an integer from ${min} to ${max}`,
  );

/** A number (integer or not) in `min..max`. */
export const IsNumberIn = (min: number, max: number) =>
  rule('isNumberIn', (value) =>
    typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max
      ? undefined
      : `must be a number from ${min} to ${max}`,
  );

/** A string of `min..max` characters. */
export const IsStringOfLength = (min: number, max: number) =>
  rule('isStringOfLength', (value) =>
    typeof value === 'string' && value.length >= min && value.length <= max
      ? undefined
      : `must be a string of ${min} to ${max} characters`,
  );

export const IsSize = () => rule('isSize', (value) => errorOf(parseSize(value)));
export const IsPercentUpTo = (max: number) => rule('isPercentUpTo', (value) => errorOf(parsePercent(value, max)));
export const IsSideLengths = (allowFour: boolean) =>
  rule('isSideLengths', (value) => errorOf(parseSideLengths(value, allowFour)));
export const IsColour = () => rule('isColour', (value) => errorOf(parseColour(value)));
export const IsLocation = (maxLength: number, folder: 'allow' | 'refuse') =>
  rule('isLocation', (value) => checkLocation(value, maxLength, folder));

function errorOf<T>(parsed: Parsed<T>): string | undefined {
  return 'error' in parsed ? parsed.error : undefined;
}
