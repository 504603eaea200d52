import { parseColour, type Colour } from '../../dto/edit-values';
import {
  absent,
  compact,
  isPlainObject,
  pathOf,
  validateShape,
  type DtoClass,
  type Issues,
} from '../../dto/dto-validation';
import {
  CategoryBlurDto,
  CategoryRemovalDto,
  SelectiveBlurDto,
  SelectiveRemovalDto,
  type BackgroundDto,
  type BlurLevel,
  type BlurType,
  type ObjectCategory,
  type SelectiveObjectDto,
} from './background.dto';

/** What to keep: a category of object, or an object described in 3..128 characters. */
export type ObjectSelection = { category: ObjectCategory } | { selective: { object_to_keep: string } };
export type BackgroundRemoval = ObjectSelection & { clipping: boolean };
export type BackgroundBlur = ObjectSelection & { type: BlurType; level: BlurLevel };

/** Absent members mean: no removal, the default colour (white, or transparent where possible), no blur. */
export interface Background {
  remove?: BackgroundRemoval;
  color?: Colour;
  blur?: BackgroundBlur;
}

/** `remove` and `blur` objects: the presence of `selective` picks the selective class, else the category one. */
const REMOVAL_CLASSES = { category: CategoryRemovalDto, selective: SelectiveRemovalDto } as const;
const BLUR_CLASSES = { category: CategoryBlurDto, selective: SelectiveBlurDto } as const;

const DEFAULT_BLUR = { type: 'regular', level: 'medium' } as const;

type SelectionClasses<C, S> = { category: DtoClass<C>; selective: DtoClass<S> };

/**
 * `remove` and `blur` objects keep either a category or a described object: `selective` present picks the
 * selective class, and a `category` beside it is refused by name rather than as an unknown member.
 */
function readSelection<C extends { category?: ObjectCategory }, S extends { selective: SelectiveObjectDto }>(
  raw: Record<string, unknown>,
  path: string,
  classes: SelectionClasses<C, S>,
  issues: Issues,
): { dto: C | S; selection: ObjectSelection } | undefined {
  if (raw.selective === undefined) {
    const dto = validateShape(classes.category, raw, path, issues);
    return dto && !issues.has(path) ? { dto, selection: { category: dto.category ?? 'general' } } : undefined;
  }
  const { category, ...rest } = raw;
  if (category !== undefined) {
    issues.add(pathOf(path, 'category'), 'category cannot be combined with selective; give one of them');
  }
  const dto = validateShape(classes.selective, rest, path, issues);
  if (!dto || issues.has(path)) return undefined;
  return { dto, selection: { selective: { object_to_keep: dto.selective.object_to_keep } } };
}

/** `remove`: `true` is the general category without clipping; `false` (the default) is no removal. */
function readRemoval(raw: unknown, path: string, issues: Issues): BackgroundRemoval | undefined {
  if (raw === false) return undefined;
  if (raw === true) return { category: 'general', clipping: false };
  if (!isPlainObject(raw)) {
    issues.add(path, 'remove must be true, false, or an object {category, clipping} or {selective, clipping}');
    return undefined;
  }
  const resolved = readSelection(raw, path, REMOVAL_CLASSES, issues);
  return resolved && { ...resolved.selection, clipping: resolved.dto.clipping ?? false };
}

/** `blur`: `true` is a regular, medium blur around the general category; `false` (the default) is no blur. */
function readBlur(raw: unknown, path: string, issues: Issues): BackgroundBlur | undefined {
  if (raw === false) return undefined;
  if (raw === true) return { ...DEFAULT_BLUR, category: 'general' };
  if (!isPlainObject(raw)) {
    issues.add(path, 'blur must be true, false, or an object {type, level, category} or {type, level, selective}');
    return undefined;
  }
  const resolved = readSelection(raw, path, BLUR_CLASSES, issues);
  if (!resolved) return undefined;
  const { type = DEFAULT_BLUR.type, level = DEFAULT_BLUR.level } = resolved.dto;
  return { type, level, ...resolved.selection };
}

/** The group, once its class has passed it: every member resolved, each problem under its own path. */
export function readBackground(value: object, path: string, issues: Issues): Background | undefined {
  const dto = value as BackgroundDto;
  const background = compact({
    remove: absent(dto.remove) ? undefined : readRemoval(dto.remove, pathOf(path, 'remove'), issues),
    color: absent(dto.color) ? undefined : colourOf(dto.color),
    blur: absent(dto.blur) ? undefined : readBlur(dto.blur, pathOf(path, 'blur'), issues),
  });
  return issues.has(path) ? undefined : background;
}

function colourOf(raw: string): Colour | undefined {
  const parsed = parseColour(raw);
  return 'value' in parsed ? parsed.value : undefined;
}
