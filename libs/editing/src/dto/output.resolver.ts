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
import { cmykProblem, formatOptions } from '../edit-rules';
import { checkLocation, LOCATION_MAX_LENGTH } from './edit-values';
import {
  AvifOptionsDto,
  COMPRESSION_TYPES,
  JpegOptionsDto,
  LosslessCompressionDto,
  LossyCompressionDto,
  isOutputFormat,
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

/** The options of a validated options object (`dto`), its defaults filled; compression unions resolved here. */
function readFormatOptions(type: OutputFormat, dto: FormatOptionsDto, path: string, issues: Issues): FormatOptions {
  if (dto instanceof JpegOptionsDto || dto instanceof PngOptionsDto) return formatOptions(type, dto);
  return formatOptions(type, { compression: readCompression(dto.compression, pathOf(path, 'compression'), issues) });
}

/** `format`: a name (its defaults) or an options object by `type`. */
export function readFormat(raw: unknown, path: string, issues: Issues): FormatOptions | undefined {
  if (isOutputFormat(raw)) return formatOptions(raw);
  if (!isPlainObject(raw)) {
    issues.add(path, `format must be one of ${OUTPUT_FORMATS.join(', ')}, or an options object with type`);
    return undefined;
  }
  const resolved = validateByType(raw, path, FORMAT_CLASSES, issues);
  if (!resolved) return undefined;
  const options = readFormatOptions(resolved.type, resolved.dto, path, issues);
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
 * CMYK against a format the client names. Read from the raw members, so that the conflict is reported even when
 * the format or the metadata has problems of its own; without a format the planner checks the one it picks.
 */
function checkCmyk(dto: OutputOptionsDto, path: string, issues: Issues): void {
  const typeOf = (value: unknown) => (isPlainObject(value) ? value.type : value);
  const format = typeOf(dto.format);
  if (typeOf(memberOf(dto.metadata, 'color_space')) !== 'CMYK' || !isOutputFormat(format)) return;
  const problem = cmykProblem(format, true);
  if (problem) issues.add(pathOf(path, 'metadata.color_space'), problem);
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
