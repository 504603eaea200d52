import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { pad, type Rgba, type Sides } from '@app/image-pipeline';
import { IsSideLengths, PADDING_RULE, parseSideLengths } from '../../dto/edit-values';
import type { SideLengths } from '../../edit-request.model';
import { checkSize, resolveSides } from '../../plan-sizes';
import type { EditOperation } from '../edit-operation';

/** The part of the plan: pixels added on each side, and their colour. */
export interface PaddingPart {
  sides: Sides;
  fill: Rgba;
}

const FIELD = 'operations.padding';
const DESCRIPTION = `Space added around the image, filled with the background colour: ${PADDING_RULE}. Each value at most 50% of the image side.`;

/**
 * `operations.padding` (`"10%"`, `"10px 20px"`, up to four values): space added around the image as it leaves the
 * background phase, so before resizing, in the background colour (`background.color`, else transparent where the
 * image keeps alpha, else white); percentages are of the image's sides as it enters, each value at most half of its
 * side (422), and the padded image within MAX_INPUT_PIXELS (422). The first registered operation that changes the
 * size: the resize after it is planned from the padded size.
 */
export const paddingOperation: EditOperation<SideLengths, PaddingPart> = {
  name: 'padding',
  property: [
    ApiPropertyOptional({ type: 'string', description: DESCRIPTION, example: '10%' }),
    IsOptional(),
    IsSideLengths(true),
  ],
  description: DESCRIPTION,
  read: (value) => {
    const parsed = parseSideLengths(value, true);
    return 'value' in parsed ? parsed.value : undefined;
  },
  plan: (lengths, { size, fill, maxPixels }) => {
    const sides = resolveSides(lengths, size.width, size.height, FIELD);
    checkSize(FIELD, grown(sides, size), maxPixels, 'the padded image');
    return { sides, fill };
  },
  step: {
    phase: 'padding',
    assumes8BitSrgb: true,
    materialises: true,
    size: ({ sides }, size) => grown(sides, size),
    run: (stage, { sides, fill }) => pad(stage, sides, fill),
  },
};

function grown(sides: Sides, size: { width: number; height: number }): { width: number; height: number } {
  return { width: size.width + sides.left + sides.right, height: size.height + sides.top + sides.bottom };
}
