import { describe, expect, it } from 'vitest';
import type { OutputFormat } from './dto/format-options.dto';
import { cmykProblem, DEFAULT_FIT, formatOptions, transparencyProblem, type FormatChoices } from './edit-rules';
import type { FormatOptions } from './edit-request.model';

describe('formatOptions', () => {
  it.each<[OutputFormat, FormatChoices | undefined, FormatOptions]>([
    ['jpeg', undefined, { type: 'jpeg', quality: 85, progressive: true }],
    ['jpeg', { quality: 60, progressive: null }, { type: 'jpeg', quality: 60, progressive: true }],
    ['png', undefined, { type: 'png', compression: 'optimal' }],
    ['png', { compression: 'best' }, { type: 'png', compression: 'best' }],
    ['webp', undefined, { type: 'webp', lossless: false, quality: 75 }],
    ['webp', { compression: { type: 'lossy', quality: 90 } }, { type: 'webp', lossless: false, quality: 90 }],
    ['webp', { compression: { type: 'lossless' } }, { type: 'webp', lossless: true }],
    ['avif', undefined, { type: 'avif', lossless: false, quality: 50 }],
    ['avif', { compression: { type: 'lossy' } }, { type: 'avif', lossless: false, quality: 50 }],
    ['tiff', undefined, { type: 'tiff', compression: 'lzw' }],
    ['tiff', { compression: { type: 'lossy' } }, { type: 'tiff', compression: 'jpeg', quality: 75 }],
    ['tiff', { compression: { type: 'lossy', quality: 40 } }, { type: 'tiff', compression: 'jpeg', quality: 40 }],
  ])('%s with %j: %j', (format, chosen, expected) => {
    expect(formatOptions(format, chosen)).toEqual(expected);
  });
});

describe('rules against the output format', () => {
  it.each<[OutputFormat, boolean, string | undefined]>([
    ['jpeg', true, 'transparent is not possible with jpeg output; use png, webp, avif or tiff'],
    ['jpeg', false, 'transparent needs an output format with transparency (png, webp, avif, tiff), not jpeg'],
    ['png', true, undefined],
    ['webp', false, undefined],
    ['avif', true, undefined],
    ['tiff', false, undefined],
  ])('transparent as %s (named: %s)', (format, named, problem) => {
    expect(transparencyProblem(format, named)).toBe(problem);
  });

  it.each<[OutputFormat, boolean, string | undefined]>([
    ['jpeg', true, undefined],
    ['jpeg', false, undefined],
    ['png', true, 'CMYK is supported only for jpeg output, not png; use RGB or format jpeg'],
    ['tiff', true, 'CMYK is supported only for jpeg output, not tiff; use RGB or format jpeg'],
    ['webp', false, 'CMYK is supported only for jpeg output, not webp'],
    ['avif', false, 'CMYK is supported only for jpeg output, not avif'],
  ])('CMYK as %s (named: %s)', (format, named, problem) => {
    expect(cmykProblem(format, named)).toBe(problem);
  });

  it('crops at the centre when no fit is given', () => {
    expect(DEFAULT_FIT).toEqual({ type: 'crop', crop: 'center' });
  });
});
