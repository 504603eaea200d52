import type { ColorSpace, Compression, EditOutput, FormatOptions, OutputMetadata } from '../edit-request.model';
import {
  absent,
  compact,
  isPlainObject,
  Issues,
  memberOf,
  pathOf,
  validateByType,
  validateShape,
  type DtoClass,
} from './dto-validation';
import { checkLocation, LOCATION_MAX_LENGTH } from './edit-values';
import {
  AvifOptionsDto,
  COMPRESSION_TYPES,
  FORMAT_DEFAULTS,
  JpegOptionsDto,
  LosslessCompressionDto,
  LossyCompressionDto,
  OUTPUT_FORMATS,
  PngOptionsDto,
  TiffOptionsDto,
  WebpOptionsDto,
  type CompressionDto,
  type CompressionType,
  type FormatOptionsDto,
  type OutputFormat,
} from './format-options.dto';
import {
  CmykColorSpaceDto,
  COLOR_SPACES,
  DEFAULT_CMYK_PROFILE,
  OutputMetadataDto,
  OutputOptionsDto,
  RgbColorSpaceDto,
  type ColorSpaceName,
} from './output.dto';

/** The discriminator `type` picks the one class that validates a format options object. */
const FORMAT_CLASSES: Record<OutputFormat, DtoClass<FormatOptionsDto>> = {
  jpeg: JpegOptionsDto,
  png: PngOptionsDto,
  webp: WebpOptionsDto,
  avif: AvifOptionsDto,
  tiff: TiffOptionsDto,
};

/** The discriminator `type` picks the class of a compression object (webp, avif, tiff). */
const COMPRESSION_CLASSES: Record<CompressionType, DtoClass<CompressionDto>> = {
  lossy: LossyCompressionDto,
  lossless: LosslessCompressionDto,
};

/** A colour space object names its space in `type`; only CMYK has options (its profile). */
const COLOR_SPACE_CLASSES: Record<ColorSpaceName, DtoClass<RgbColorSpaceDto | CmykColorSpaceDto>> = {
  RGB: RgbColorSpaceDto,
  CMYK: CmykColorSpaceDto,
};

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

/** `compression` of webp, avif and tiff: a name or an object by `type`; undefined when absent or invalid. */
function readCompression(raw: unknown, path: string, issues: Issues): Compression | undefined {
  if (absent(raw)) return undefined;
  if (isOneOf(COMPRESSION_TYPES, raw)) return { type: raw };
  if (!isPlainObject(raw)) {
    issues.add(
      path,
      'compression must be "lossy", "lossless", or an object {type: "lossy", quality} or {type: "lossless"}',
    );
    return undefined;
  }
  const resolved = validateByType(raw, path, COMPRESSION_CLASSES, issues);
  if (!resolved) return undefined;
  const { dto } = resolved;
  return dto instanceof LossyCompressionDto && !absent(dto.quality)
    ? { type: 'lossy', quality: dto.quality }
    : { type: resolved.type };
}

/** Fills a format's defaults (the interface document's). `dto` is a validated options object, or just the name. */
function formatOptions(
  type: OutputFormat,
  dto: Partial<FormatOptionsDto>,
  path: string,
  issues: Issues,
): FormatOptions {
  const compression = 'compression' in dto ? dto.compression : undefined;
  switch (type) {
    case 'jpeg': {
      const { quality, progressive } = dto as Partial<JpegOptionsDto>;
      return {
        type,
        quality: quality ?? FORMAT_DEFAULTS.jpegQuality,
        progressive: progressive ?? FORMAT_DEFAULTS.jpegProgressive,
      };
    }
    case 'png':
      return { type, compression: (compression as PngOptionsDto['compression']) ?? FORMAT_DEFAULTS.pngCompression };
    case 'webp':
    case 'avif': {
      const chosen = readCompression(compression, pathOf(path, 'compression'), issues);
      const quality = type === 'webp' ? FORMAT_DEFAULTS.webpQuality : FORMAT_DEFAULTS.avifQuality;
      if (chosen?.type === 'lossless') return { type, lossless: true };
      return { type, lossless: false, quality: chosen?.quality ?? quality };
    }
    case 'tiff': {
      const chosen = readCompression(compression, pathOf(path, 'compression'), issues);
      if (chosen?.type !== 'lossy') return { type, compression: 'lzw' };
      return { type, compression: 'jpeg', quality: chosen.quality ?? FORMAT_DEFAULTS.tiffLossyQuality };
    }
  }
}

/** `format`: a name (its defaults) or an options object by `type`. */
function readFormat(raw: unknown, path: string, issues: Issues): FormatOptions | undefined {
  if (isOneOf(OUTPUT_FORMATS, raw)) return formatOptions(raw, {}, path, issues);
  if (!isPlainObject(raw)) {
    issues.add(path, `format must be one of ${OUTPUT_FORMATS.join(', ')}, or an options object with type`);
    return undefined;
  }
  const resolved = validateByType(raw, path, FORMAT_CLASSES, issues);
  if (!resolved) return undefined;
  const options = formatOptions(resolved.type, resolved.dto, path, issues);
  return issues.has(path) ? undefined : options;
}

/** `color_space`: `RGB` or `{type: "RGB"}`, `CMYK` (default profile ISO_Coated) or `{type: "CMYK", color_profile}`. */
function readColorSpace(raw: unknown, path: string, issues: Issues): ColorSpace | undefined {
  if (raw === 'RGB') return { type: 'RGB' };
  if (raw === 'CMYK') return { type: 'CMYK', color_profile: DEFAULT_CMYK_PROFILE };
  if (!isPlainObject(raw)) {
    issues.add(path, `color_space must be one of ${COLOR_SPACES.join(', ')}, or an object {type, color_profile}`);
    return undefined;
  }
  const resolved = validateByType(raw, path, COLOR_SPACE_CLASSES, issues);
  if (!resolved) return undefined;
  const { dto } = resolved;
  if (dto instanceof CmykColorSpaceDto)
    return { type: 'CMYK', color_profile: dto.color_profile ?? DEFAULT_CMYK_PROFILE };
  return { type: 'RGB' };
}

function readMetadata(raw: unknown, path: string, issues: Issues): OutputMetadata | undefined {
  const dto = validateShape(OutputMetadataDto, raw, path, issues);
  if (!dto) return undefined;
  const colorPath = pathOf(path, 'color_space');
  const color_space = absent(dto.color_space) ? undefined : readColorSpace(dto.color_space, colorPath, issues);
  return issues.has(path) ? undefined : compact({ dpi: dto.dpi ?? undefined, color_space });
}

/**
 * CMYK needs jpeg output. Read from the raw members, so that the conflict is reported even when the format or the
 * metadata has problems of its own; without a format the caller checks against the format it picks.
 */
function checkCmyk(dto: OutputOptionsDto, path: string, issues: Issues): void {
  const typeOf = (value: unknown) => (isPlainObject(value) ? value.type : value);
  const format = typeOf(dto.format);
  if (
    typeOf(memberOf(dto.metadata, 'color_space')) === 'CMYK' &&
    isOneOf(OUTPUT_FORMATS, format) &&
    format !== 'jpeg'
  ) {
    issues.add(
      pathOf(path, 'metadata.color_space'),
      `CMYK is supported only for jpeg output, not ${format}; use RGB or format jpeg`,
    );
  }
}

function readOutputOptions(raw: Record<string, unknown>, path: string, issues: Issues): EditOutput | undefined {
  const dto = validateShape(OutputOptionsDto, raw, path, issues);
  if (!dto) return undefined;
  const format = absent(dto.format) ? undefined : readFormat(dto.format, pathOf(path, 'format'), issues);
  const metadata = absent(dto.metadata) ? undefined : readMetadata(dto.metadata, pathOf(path, 'metadata'), issues);
  checkCmyk(dto, path, issues);
  return issues.has(path) ? undefined : compact({ destination: dto.destination ?? undefined, format, metadata });
}

/**
 * Validates and normalises `output`: absent is `{}` (temporary bucket, format chosen by the caller), a string is
 * the destination alone, an object has `destination`, `format` and `metadata`. Problems go to `issues`.
 */
export function readOutput(raw: unknown, path: string, issues: Issues): EditOutput | undefined {
  if (absent(raw)) return {};
  if (typeof raw === 'string') {
    const problem = checkLocation(raw, LOCATION_MAX_LENGTH, 'allow');
    if (problem === undefined) return { destination: raw };
    issues.add(path, `output ${problem}`);
    return undefined;
  }
  if (isPlainObject(raw)) return readOutputOptions(raw, path, issues);
  issues.add(
    path,
    'output must be a destination (a storage reference or an http(s) URL) or an object {destination, format, metadata}',
  );
  return undefined;
}
