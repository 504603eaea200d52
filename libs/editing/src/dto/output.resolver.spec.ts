import { describe, expect, it } from 'vitest';
import { rejected } from '../../../../test/helpers/rejected';
import { parseEditRequest } from '../edit-request';
import type { EditOutput } from '../edit-request.model';

const INPUT = 'https://images.example.com/shoe.jpg';

function output(value: unknown): EditOutput {
  return parseEditRequest({ input: INPUT, output: value }, { input: 'required' }).output;
}

/** The paths of the 422 that `value` as `output` causes. */
async function refusedPaths(value: unknown): Promise<string[]> {
  const error = await rejected(Promise.resolve().then(() => output(value)));
  expect(error.status).toBe(422);
  return Object.keys(error.details).sort();
}

describe('output normalises', () => {
  it.each<[string, unknown, EditOutput]>([
    ['a destination string', 'storage://catalogue/edited/', { destination: 'storage://catalogue/edited/' }],
    [
      'an http destination string',
      'https://upload.example.com/put/a.png',
      { destination: 'https://upload.example.com/put/a.png' },
    ],
    ['an empty object', {}, {}],
    ['jpeg by name', { format: 'jpeg' }, { format: { type: 'jpeg', quality: 85, progressive: true } }],
    ['png by name', { format: 'png' }, { format: { type: 'png', compression: 'optimal' } }],
    ['webp by name', { format: 'webp' }, { format: { type: 'webp', lossless: false, quality: 75 } }],
    ['avif by name', { format: 'avif' }, { format: { type: 'avif', lossless: false, quality: 50 } }],
    ['tiff by name', { format: 'tiff' }, { format: { type: 'tiff', compression: 'lzw' } }],
    [
      'jpeg options',
      { format: { type: 'jpeg', quality: 1, progressive: false } },
      { format: { type: 'jpeg', quality: 1, progressive: false } },
    ],
    [
      'jpeg options defaults',
      { format: { type: 'jpeg' } },
      { format: { type: 'jpeg', quality: 85, progressive: true } },
    ],
    ['png options', { format: { type: 'png', compression: 'fast' } }, { format: { type: 'png', compression: 'fast' } }],
    [
      'webp lossless by name',
      { format: { type: 'webp', compression: 'lossless' } },
      { format: { type: 'webp', lossless: true } },
    ],
    [
      'webp lossy by name',
      { format: { type: 'webp', compression: 'lossy' } },
      { format: { type: 'webp', lossless: false, quality: 75 } },
    ],
    [
      'webp lossy object',
      { format: { type: 'webp', compression: { type: 'lossy', quality: 100 } } },
      { format: { type: 'webp', lossless: false, quality: 100 } },
    ],
    [
      'webp lossless object',
      { format: { type: 'webp', compression: { type: 'lossless' } } },
      { format: { type: 'webp', lossless: true } },
    ],
    ['avif options defaults', { format: { type: 'avif' } }, { format: { type: 'avif', lossless: false, quality: 50 } }],
    [
      'avif lossy object without quality',
      { format: { type: 'avif', compression: { type: 'lossy' } } },
      { format: { type: 'avif', lossless: false, quality: 50 } },
    ],
    [
      'avif lossless',
      { format: { type: 'avif', compression: 'lossless' } },
      { format: { type: 'avif', lossless: true } },
    ],
    [
      'tiff lossy by name',
      { format: { type: 'tiff', compression: 'lossy' } },
      { format: { type: 'tiff', compression: 'jpeg', quality: 75 } },
    ],
    [
      'tiff lossy object',
      { format: { type: 'tiff', compression: { type: 'lossy', quality: 90 } } },
      { format: { type: 'tiff', compression: 'jpeg', quality: 90 } },
    ],
    [
      'tiff lossless',
      { format: { type: 'tiff', compression: 'lossless' } },
      { format: { type: 'tiff', compression: 'lzw' } },
    ],
    [
      'dpi and RGB',
      { metadata: { dpi: 300, color_space: 'RGB' } },
      { metadata: { dpi: 300, color_space: { type: 'RGB' } } },
    ],
    [
      'an RGB object, as RGB',
      { metadata: { color_space: { type: 'RGB' } } },
      { metadata: { color_space: { type: 'RGB' } } },
    ],
    [
      'CMYK by name with jpeg',
      { format: 'jpeg', metadata: { color_space: 'CMYK' } },
      {
        format: { type: 'jpeg', quality: 85, progressive: true },
        metadata: { color_space: { type: 'CMYK', color_profile: 'ISO_Coated' } },
      },
    ],
    [
      'CMYK object without a format',
      { metadata: { color_space: { type: 'CMYK', color_profile: 'USWeb_Uncoated' } } },
      {
        metadata: { color_space: { type: 'CMYK', color_profile: 'USWeb_Uncoated' } },
      },
    ],
    [
      'CMYK object with default profile',
      { metadata: { color_space: { type: 'CMYK' } }, destination: 'storage://c/a.jpg' },
      {
        destination: 'storage://c/a.jpg',
        metadata: { color_space: { type: 'CMYK', color_profile: 'ISO_Coated' } },
      },
    ],
    ['dpi bounds', { metadata: { dpi: 10000 } }, { metadata: { dpi: 10000 } }],
  ])('output: %s', (_name, value, expected) => {
    expect(output(value)).toEqual(expected);
  });
});

describe('output refusals', () => {
  it.each<[string, unknown, string]>([
    ['a number', 5, 'output'],
    ['an empty string', '', 'output'],
    ['a destination of another scheme', 'ftp://example.com/out/', 'output'],
    ['a relative destination', { destination: 'out/' }, 'output.destination'],
    ['a destination too long', { destination: `https://example.com/${'a'.repeat(4080)}` }, 'output.destination'],
    ['an unknown format name', { format: 'gif' }, 'output.format'],
    ['format as a number', { format: 1 }, 'output.format'],
    ['an unknown format type', { format: { type: 'gif' } }, 'output.format.type'],
    ['format options without type', { format: { quality: 90 } }, 'output.format.type'],
    ['jpeg quality 0', { format: { type: 'jpeg', quality: 0 } }, 'output.format.quality'],
    ['jpeg quality 101', { format: { type: 'jpeg', quality: 101 } }, 'output.format.quality'],
    ['jpeg progressive', { format: { type: 'jpeg', progressive: 'no' } }, 'output.format.progressive'],
    ['png compression', { format: { type: 'png', compression: 'max' } }, 'output.format.compression'],
    ['webp compression name', { format: { type: 'webp', compression: 'zip' } }, 'output.format.compression'],
    [
      'webp compression type',
      { format: { type: 'webp', compression: { type: 'zip' } } },
      'output.format.compression.type',
    ],
    [
      'compression without type',
      { format: { type: 'webp', compression: { quality: 5 } } },
      'output.format.compression.type',
    ],
    [
      'lossy quality 0',
      { format: { type: 'avif', compression: { type: 'lossy', quality: 0 } } },
      'output.format.compression.quality',
    ],
    [
      'tiff quality 101',
      { format: { type: 'tiff', compression: { type: 'lossy', quality: 101 } } },
      'output.format.compression.quality',
    ],
    ['dpi 0', { metadata: { dpi: 0 } }, 'output.metadata.dpi'],
    ['dpi over 10000', { metadata: { dpi: 10001 } }, 'output.metadata.dpi'],
    ['fractional dpi', { metadata: { dpi: 72.5 } }, 'output.metadata.dpi'],
    ['an unknown colour space', { metadata: { color_space: 'LAB' } }, 'output.metadata.color_space'],
    [
      'a profile on an RGB object',
      { metadata: { color_space: { type: 'RGB', color_profile: 'ISO_Coated' } } },
      'output.metadata.color_space.color_profile',
    ],
    [
      'an unknown profile',
      { metadata: { color_space: { type: 'CMYK', color_profile: 'FOGRA39' } } },
      'output.metadata.color_space.color_profile',
    ],
    ['metadata as a string', { metadata: 'exif' }, 'output.metadata'],
    ['CMYK with png', { format: 'png', metadata: { color_space: 'CMYK' } }, 'output.metadata.color_space'],
    [
      'CMYK with webp options',
      { format: { type: 'webp' }, metadata: { color_space: { type: 'CMYK' } } },
      'output.metadata.color_space',
    ],
    ['CMYK with tiff', { format: 'tiff', metadata: { color_space: 'CMYK' } }, 'output.metadata.color_space'],
  ])('refuses output with %s', async (_name, value, path) => {
    expect(await refusedPaths(value)).toEqual([path]);
  });

  it('reports CMYK with another format beside the problems of both', async () => {
    const value = {
      format: { type: 'png', compression: 'max' },
      metadata: { dpi: 0, color_space: { type: 'CMYK', color_profile: 'x' } },
    };
    expect(await refusedPaths(value)).toEqual([
      'output.format.compression',
      'output.metadata.color_space',
      'output.metadata.color_space.color_profile',
      'output.metadata.dpi',
    ]);
  });
});
