import { outputCapabilities } from '@app/common';
import { FORMAT_DEFAULTS, OUTPUT_FORMATS, type OutputFormat, type PngCompression } from './dto/format-options.dto';
import { DEFAULT_CROP } from './dto/resizing.dto';
import type { Compression, Fit, FormatOptions } from './edit-request.model';

/*
 * The rules an edit is held to in two places: when the request is parsed, against the format the client names
 * (all problems at once, before the image is read), and when it is planned, against the format the service
 * picks when none is named (the destination's extension or the input's format). Each rule is written here once,
 * what a format holds is read from the one format table (libs/common/src/media/media-type.ts), and the callers
 * own the field paths.
 */

/** No `fit`: crop at the centre. */
export const DEFAULT_FIT: Fit = { type: 'crop', crop: DEFAULT_CROP };

type LossyFormat = Exclude<OutputFormat, 'png'>;

/** The quality (1..100) of a lossy encoding whose request gives none. */
export function defaultQuality(format: LossyFormat): number {
  const defaults = {
    jpeg: FORMAT_DEFAULTS.jpegQuality,
    webp: FORMAT_DEFAULTS.webpQuality,
    avif: FORMAT_DEFAULTS.avifQuality,
    tiff: FORMAT_DEFAULTS.tiffLossyQuality,
  };
  return defaults[format];
}

/** What a request chose of a format's options, validated; anything left out takes the default. */
export interface FormatChoices {
  /** jpeg: 1..100. */
  quality?: number | null;
  /** jpeg. */
  progressive?: boolean | null;
  /** png: a level; webp, avif and tiff: lossless, or lossy with an optional quality. */
  compression?: PngCompression | Compression | null;
}

/** The options of `format` with the contract's defaults filled (all of them when `chosen` is left out). */
export function formatOptions(format: OutputFormat, chosen: FormatChoices = {}): FormatOptions {
  const { compression } = chosen;
  const lossy = typeof compression === 'object' && compression?.type === 'lossy' ? compression : undefined;
  const lossless = typeof compression === 'object' && compression?.type === 'lossless';
  switch (format) {
    case 'jpeg':
      return {
        type: format,
        quality: chosen.quality ?? defaultQuality(format),
        progressive: chosen.progressive ?? FORMAT_DEFAULTS.jpegProgressive,
      };
    case 'png':
      return {
        type: format,
        compression: typeof compression === 'string' ? compression : FORMAT_DEFAULTS.pngCompression,
      };
    case 'webp':
    case 'avif':
      return lossless
        ? { type: format, lossless: true }
        : { type: format, lossless: false, quality: lossy?.quality ?? defaultQuality(format) };
    case 'tiff':
      return lossy
        ? { type: format, compression: 'jpeg', quality: lossy.quality ?? defaultQuality(format) }
        : { type: format, compression: 'lzw' };
  }
}

/** `a, b or c` */
function orList(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

const WITH_ALPHA = OUTPUT_FORMATS.filter((format) => outputCapabilities(format).alpha);
const CMYK_TARGETS = OUTPUT_FORMATS.filter((format) => outputCapabilities(format).cmykOnRequest);

/**
 * Why a `transparent` background cannot be written as `format`, or undefined when it can. `named`: the client
 * named the format (so the message says what to name instead); else the service picked it.
 */
export function transparencyProblem(format: OutputFormat, named: boolean): string | undefined {
  if (outputCapabilities(format).alpha) return undefined;
  return named
    ? `transparent is not possible with ${format} output; use ${orList(WITH_ALPHA)}`
    : `transparent needs an output format with transparency (${WITH_ALPHA.join(', ')}), not ${format}`;
}

/** Why `color_space: CMYK` cannot be written as `format`, or undefined when it can; `named` as above. */
export function cmykProblem(format: OutputFormat, named: boolean): string | undefined {
  if (outputCapabilities(format).cmykOnRequest) return undefined;
  const problem = `CMYK is supported only for ${orList(CMYK_TARGETS)} output, not ${format}`;
  return named ? `${problem}; use RGB or format ${orList(CMYK_TARGETS)}` : problem;
}
