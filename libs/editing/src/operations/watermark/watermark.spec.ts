import { describe, expect, it } from 'vitest';
import { pipelineSteps } from '@app/image-pipeline';
import { OperationsDto } from '../../dto/operations.dto';
import { Issues } from '../../dto/dto-validation';
import { readOperations } from '../../dto/operations.resolver';
import '..';
import { watermarkOperation } from './watermark.operation';
import { placeOf } from './watermark.step';
import { WatermarkDto } from './watermark.dto';

const IMAGE = { width: 400, height: 300 };
const MARK = { width: 100, height: 50 };

describe('placeOf: where a 100x50 mark sits on a 400x300 image', () => {
  it.each([
    ['north_west', { x: 0, y: 0 }, { left: 0, top: 0 }],
    ['north_west', { x: 10, y: 20 }, { left: 10, top: 20 }],
    ['north', { x: 10, y: 20 }, { left: 150, top: 20 }],
    ['north_east', { x: 10, y: 20 }, { left: 290, top: 20 }],
    ['west', { x: 10, y: 20 }, { left: 10, top: 125 }],
    ['center', { x: 10, y: 20 }, { left: 150, top: 125 }],
    ['east', { x: 0, y: 0 }, { left: 300, top: 125 }],
    ['south_west', { x: 5, y: 5 }, { left: 5, top: 245 }],
    ['south', { x: 0, y: 0 }, { left: 150, top: 250 }],
    ['south_east', { x: 0, y: 0 }, { left: 300, top: 250 }],
    ['south_east', { x: 10, y: 20 }, { left: 290, top: 230 }],
    // an offset past the far edge keeps the mark on the image
    ['south_east', { x: 1000, y: 1000 }, { left: 0, top: 0 }],
    ['north_west', { x: 1000, y: 1000 }, { left: 300, top: 250 }],
  ] as const)('%s offset %j: %j', (position, offset, expected) => {
    expect(placeOf(position, offset, MARK, IMAGE)).toEqual(expected);
  });
});

describe('watermarkOperation: the request read and planned', () => {
  const read = (value: Partial<WatermarkDto>) => {
    const issues = new Issues();
    const result = watermarkOperation.read(Object.assign(new WatermarkDto(), value), 'operations.watermark', issues);
    return { result, issues: issues.details };
  };

  it('fills the defaults: south_east, no offset, a fifth of the width, opaque, white text, no tiling', () => {
    expect(read({ text: '© shop' }).result).toEqual({
      mark: { kind: 'text', text: '© shop', color: { r: 255, g: 255, b: 255 } },
      position: 'south_east',
      offset: { x: 0, y: 0 },
      scale: 0.2,
      opacity: 1,
      tile: false,
    });
  });

  it('needs exactly one mark, and colour and font size only for text', () => {
    expect(read({}).issues).toEqual({ 'operations.watermark': ['watermark needs exactly one of image and text'] });
    expect(Object.keys(read({ image: 'https://example.com/a.png', color: '#000', font_size: 12 }).issues)).toEqual([
      'operations.watermark.color',
      'operations.watermark.font_size',
    ]);
    expect(read({ text: 'x', color: 'transparent' }).issues['operations.watermark.color']).toBeDefined();
  });

  it("counts an image mark's decoded pixels in its memory, and a text mark's at the output's size", () => {
    const sizes = {
      frame: 4_000_000,
      upscaled: 0,
      input: 1_000_000,
      inputSize: { width: 1000, height: 1000 },
      output: 1_000_000,
      depth: 1,
    };
    const part = (kind: 'image' | 'text') =>
      watermarkOperation.plan(read(kind === 'image' ? { image: 'https://example.com/a.png' } : { text: 'x' }).result!, {
        size: { width: 1000, height: 1000 },
        format: 'png',
        fill: { r: 255, g: 255, b: 255, alpha: 1 },
        maxPixels: 100_000_000,
        path: 'operations.watermark',
      })!;
    expect(watermarkOperation.step.memory!(part('text'), sizes)).toBe(8_000_000);
    expect(watermarkOperation.step.memory!(part('image'), sizes)).toBe(8_000_000 + 4096 * 4096 * 4);
  });

  it('plans the mark width from the final size and reads the image as an asset', () => {
    const value = read({ image: 'storage://brand/logo.png', scale: 0.25 }).result!;
    expect(watermarkOperation.asset!(value)).toEqual({
      field: 'operations.watermark.image',
      location: 'storage://brand/logo.png',
    });
    const part = watermarkOperation.plan(value, {
      size: { width: 1000, height: 500 },
      format: 'png',
      fill: { r: 255, g: 255, b: 255, alpha: 1 },
      maxPixels: 100_000_000,
      path: 'operations.watermark',
    });
    expect(part).toMatchObject({ mark: { kind: 'image' }, width: 250, position: 'south_east' });
  });
});

describe('the watermark, registered', () => {
  it('is a member of operations, documented, and runs after style transfer, before encoding', () => {
    const documented = Reflect.getMetadata('swagger/apiModelPropertiesArray', OperationsDto.prototype) as string[];
    expect(documented).toContain(':watermark');
    const names = pipelineSteps().map((step) => step.name);
    expect(names.slice(-3)).toEqual(['generative', 'watermark', 'encode']);
  });

  it('is read through its class, refusing what the class refuses', () => {
    const issues = new Issues();
    const read = readOperations({ watermark: { text: '© shop', opacity: 0.5 } }, 'operations', issues);
    expect(issues.details).toEqual({});
    expect(read.registered?.watermark).toMatchObject({ mark: { kind: 'text', text: '© shop' }, opacity: 0.5 });
    const bad = new Issues();
    readOperations({ watermark: { text: '', tile: 'yes' } }, 'operations', bad);
    expect(Object.keys(bad.details).sort()).toEqual(['operations.watermark.text', 'operations.watermark.tile']);
  });
});
