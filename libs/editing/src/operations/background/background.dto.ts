import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, IsBoolean, IsDefined, IsIn, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { IsColour, IsStringOfLength } from '../../dto/edit-values';

export const OBJECT_CATEGORIES = ['general', 'products', 'cars'] as const;
export type ObjectCategory = (typeof OBJECT_CATEGORIES)[number];
export const BLUR_TYPES = ['regular', 'lens'] as const;
export type BlurType = (typeof BLUR_TYPES)[number];
export const BLUR_LEVELS = ['low', 'medium', 'high'] as const;
export type BlurLevel = (typeof BLUR_LEVELS)[number];

const CATEGORY_DOC = {
  enum: OBJECT_CATEGORIES,
  default: 'general',
  description: 'Kind of main object to keep: `general`, `products` or `cars`. Not together with `selective`.',
};
const CLIPPING_DOC = {
  type: Boolean,
  default: false,
  description: "Crops the result to the kept object's bounding box.",
};

export class SelectiveObjectDto {
  @ApiProperty({ minLength: 3, maxLength: 128, description: 'Describes the object to keep.', example: 'red car' })
  @IsDefined({ message: '$property is required' })
  @IsStringOfLength(3, 128)
  object_to_keep: string;
}

const SELECTIVE_DOC = {
  type: () => SelectiveObjectDto,
  description: 'Keeps the described object (instead of a category). Not together with `category`.',
};

/** `remove: {category?, clipping?}`. */
export class CategoryRemovalDto {
  @ApiPropertyOptional(CATEGORY_DOC)
  @IsOptional()
  @IsIn(OBJECT_CATEGORIES)
  category?: ObjectCategory;

  @ApiPropertyOptional(CLIPPING_DOC)
  @IsOptional()
  @IsBoolean()
  clipping?: boolean;
}

/** `remove: {selective: {object_to_keep}, clipping?}`. */
export class SelectiveRemovalDto {
  @ApiProperty(SELECTIVE_DOC)
  @IsObject({ message: '$property must be an object with object_to_keep' })
  @ValidateNested()
  @Type(() => SelectiveObjectDto)
  selective: SelectiveObjectDto;

  @ApiPropertyOptional(CLIPPING_DOC)
  @IsOptional()
  @IsBoolean()
  clipping?: boolean;
}

class BlurStyleDto {
  @ApiPropertyOptional({
    enum: BLUR_TYPES,
    default: 'regular',
    description: '`lens` imitates a shallow depth of field.',
  })
  @IsOptional()
  @IsIn(BLUR_TYPES)
  type?: BlurType;

  @ApiPropertyOptional({ enum: BLUR_LEVELS, default: 'medium' })
  @IsOptional()
  @IsIn(BLUR_LEVELS)
  level?: BlurLevel;
}

/** `blur: {type?, level?, category?}`: blurs everything but the object of the category. */
export class CategoryBlurDto extends BlurStyleDto {
  @ApiPropertyOptional(CATEGORY_DOC)
  @IsOptional()
  @IsIn(OBJECT_CATEGORIES)
  category?: ObjectCategory;
}

/** `blur: {type?, level?, selective: {object_to_keep}}`: blurs everything but the described object. */
export class SelectiveBlurDto extends BlurStyleDto {
  @ApiProperty(SELECTIVE_DOC)
  @IsObject({ message: '$property must be an object with object_to_keep' })
  @ValidateNested()
  @Type(() => SelectiveObjectDto)
  selective: SelectiveObjectDto;
}

@ApiExtraModels(CategoryRemovalDto, SelectiveRemovalDto, CategoryBlurDto, SelectiveBlurDto)
export class BackgroundDto {
  @ApiPropertyOptional({
    oneOf: [
      { type: 'boolean' },
      { $ref: getSchemaPath(CategoryRemovalDto) },
      { $ref: getSchemaPath(SelectiveRemovalDto) },
    ],
    default: false,
    description:
      'Removes the background. `true` means `{"category": "general", "clipping": false}`. An object with `selective` keeps the described object; `category` and `selective` do not go together. Not together with style_transfer.',
    example: { category: 'products', clipping: true },
  })
  // A union: resolved (by the presence of `selective`) and validated in operations.resolver.ts.
  @Allow()
  remove?: boolean | CategoryRemovalDto | SelectiveRemovalDto;

  @ApiPropertyOptional({
    type: 'string',
    pattern: '^(#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})|transparent)$',
    description:
      'Background colour: `#rgb`, `#rrggbb` or `transparent` (not with jpeg output). Default: white, or transparent when the input has an alpha channel or its background is removed, and the output format can hold it.',
    example: '#f5f5f5',
  })
  @IsOptional()
  @IsColour()
  color?: string;

  @ApiPropertyOptional({
    oneOf: [{ type: 'boolean' }, { $ref: getSchemaPath(CategoryBlurDto) }, { $ref: getSchemaPath(SelectiveBlurDto) }],
    default: false,
    description:
      'Blurs the background around the main object. `true` means `{"type": "regular", "level": "medium", "category": "general"}`. Not together with style_transfer.',
    example: { type: 'lens', level: 'high' },
  })
  // A union: resolved (by the presence of `selective`) and validated in operations.resolver.ts.
  @Allow()
  blur?: boolean | CategoryBlurDto | SelectiveBlurDto;
}
