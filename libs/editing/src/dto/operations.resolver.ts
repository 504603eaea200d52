import type { EditOperations, Fit, Resizing } from '../edit-request.model';
import { DEFAULT_FIT } from '../edit-rules';
import { editOperations } from '../operations';
import {
  absent,
  compact,
  isPlainObject,
  Issues,
  pathOf,
  validateByType,
  validateShape,
  type DtoClass,
} from './dto-validation';
import { parsePercent, parseSideLengths, parseSize, MAX_SIDE_PERCENT, type Parsed, type Size } from './edit-values';
import { OperationsDto } from './operations.dto';
import {
  BoxFitDto,
  CropFitDto,
  DEFAULT_CROP,
  FIT_TYPES,
  OutpaintFitDto,
  ResizingDto,
  type FitType,
} from './resizing.dto';

/** The discriminator `type` picks the class of a fit object; an object without `type` is the crop fit. */
const FIT_CLASSES: Record<FitType, DtoClass<CropFitDto | BoxFitDto | OutpaintFitDto>> = {
  crop: CropFitDto,
  bounds: BoxFitDto,
  cover: BoxFitDto,
  canvas: BoxFitDto,
  outpaint: OutpaintFitDto,
};

/** The value of a grammar, or undefined when it failed (its DTO rule has recorded why). */
function parsed<T>(result: Parsed<T>): T | undefined {
  return 'value' in result ? result.value : undefined;
}

function fitOfName(name: FitType): Fit {
  if (name === 'crop') return DEFAULT_FIT;
  return name === 'outpaint' ? { type: 'outpaint' } : { type: name };
}

/** `fit`: a name, or an object resolved by `type` (absent: crop); a crop fit without `crop` crops at the centre. */
function readFit(raw: unknown, path: string, issues: Issues): Fit | undefined {
  if (absent(raw)) return DEFAULT_FIT;
  if (typeof raw === 'string' && (FIT_TYPES as readonly string[]).includes(raw)) return fitOfName(raw as FitType);
  if (!isPlainObject(raw)) {
    issues.add(path, `fit must be one of ${FIT_TYPES.join(', ')}, or an object with type`);
    return undefined;
  }
  const resolved = validateByType(raw, path, FIT_CLASSES, issues, 'crop');
  if (!resolved) return undefined;
  const { dto } = resolved;
  if (dto instanceof CropFitDto) return { type: 'crop', crop: dto.crop ?? DEFAULT_CROP };
  if (dto instanceof BoxFitDto) return { type: dto.type };
  return compact({
    type: 'outpaint' as const,
    feathering: absent(dto.feathering) ? undefined : parsed(parsePercent(dto.feathering, MAX_SIDE_PERCENT)),
    outpaint_by: absent(dto.outpaint_by) ? undefined : parsed(parseSideLengths(dto.outpaint_by, false)),
  });
}

/**
 * Width and height together: a percentage on one side needs the same percentage, `auto` or nothing on the other;
 * at least one side must be a size (pixels or a percentage) unless fit is outpaint, where `auto` on both sides
 * (or no size at all) means extending without a final resize.
 */
function checkSizes(width: Size | undefined, height: Size | undefined, fit: Fit, path: string, issues: Issues): void {
  const percent = [width, height].filter((size) => size?.kind === 'percent');
  const other = width?.kind === 'percent' ? height : width;
  const matches =
    other === undefined || other.kind === 'auto' || (other.kind === 'percent' && other.value === percent[0]!.value);
  if (percent.length > 0 && !matches) {
    issues.add(path, 'when width or height is a percentage, the other must be the same percentage, "auto" or absent');
  }
  const sized = [width, height].some((size) => size !== undefined && size.kind !== 'auto');
  const given = width !== undefined || height !== undefined;
  if (given && !sized && fit.type !== 'outpaint') {
    issues.add(path, 'width and height cannot both be "auto" (or "auto" and absent) except with fit outpaint');
  }
}

function readResizing(raw: unknown, path: string, issues: Issues): Resizing | undefined {
  const dto = validateShape(ResizingDto, raw, path, issues);
  if (!dto) return undefined;
  const fit = readFit(dto.fit, pathOf(path, 'fit'), issues);
  const width = absent(dto.width) ? undefined : parsed(parseSize(dto.width));
  const height = absent(dto.height) ? undefined : parsed(parseSize(dto.height));
  const sizesValid = !issues.has(pathOf(path, 'width')) && !issues.has(pathOf(path, 'height'));
  if (fit && sizesValid) checkSizes(width, height, fit, path, issues);
  return fit && !issues.has(path) ? compact({ width, height, fit }) : undefined;
}

type GroupName = Exclude<keyof EditOperations, 'registered'>;

/** One reader per object member of `operations`; each returns a value only when its whole group is valid. */
const GROUP_READERS: { [K in GroupName]: (raw: unknown, path: string, issues: Issues) => EditOperations[K] } = {
  resizing: readResizing,
};

/** The members of the registered operations (operations/): each object checked by its class, then read. */
function readRegistered(dto: Record<string, unknown>, path: string, issues: Issues): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const operation of editOperations()) {
    const raw = dto[operation.name];
    if (absent(raw)) continue;
    const at = pathOf(path, operation.name);
    operation.check?.(dto, issues);
    // read even when the class found problems, so that one 422 lists those its rules across members find too; a
    // value that is not an object was checked with the rest of `operations` (its property's decorators)
    const shaped = operation.dto ? validateShape(operation.dto, raw, at, issues) : issues.has(at) ? undefined : raw;
    if (shaped === undefined) continue;
    const value = operation.read(shaped, at, issues);
    if (value !== undefined && !issues.has(at)) values[operation.name] = value;
  }
  return values;
}

/** Validates and normalises `operations` (absent: no operations); problems go to `issues`. */
export function readOperations(raw: unknown, path: string, issues: Issues): EditOperations {
  if (absent(raw)) return {};
  const dto = validateShape(OperationsDto, raw, path, issues);
  if (!dto) return {};
  const operations: Record<string, unknown> = {};
  for (const name of Object.keys(GROUP_READERS) as GroupName[]) {
    const value: unknown = dto[name];
    if (!absent(value)) operations[name] = GROUP_READERS[name](value, pathOf(path, name), issues);
  }
  const registered = readRegistered(dto as unknown as Record<string, unknown>, path, issues);
  if (Object.keys(registered).length > 0) operations.registered = registered;
  return compact(operations) as EditOperations;
}
