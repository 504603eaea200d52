import { describe, expect, it } from 'vitest';
import {
  ImageMediaType,
  isOutputMediaType,
  MEDIA_TYPES,
  mediaTypeOfExtension,
  mediaTypeOfMime,
  outputCapabilities,
  sniffMediaType,
} from './media-type';

/** An ISO-BMFF `ftyp` box with its major and compatible brands, followed by a few bytes of the next box. */
function ftyp(major: string, compatible: string[]): Buffer {
  const size = 16 + 4 * compatible.length;
  const box = Buffer.alloc(size);
  box.writeUInt32BE(size, 0);
  box.write('ftyp', 4, 'latin1');
  box.write(major, 8, 'latin1');
  compatible.forEach((brand, i) => box.write(brand, 16 + 4 * i, 'latin1'));
  return Buffer.concat([box, Buffer.from([0, 0, 0, 8]), Buffer.from('meta', 'latin1')]);
}

function bmp(infoHeaderSize: number): Buffer {
  const bytes = Buffer.alloc(54);
  bytes.write('BM', 0, 'latin1');
  bytes.writeUInt32LE(54, 2);
  bytes.writeUInt32LE(infoHeaderSize, 14);
  return bytes;
}

const bytes = (...values: number[]) => Buffer.from(values);

describe('sniffMediaType', () => {
  const cases: [string, Buffer, ImageMediaType][] = [
    ['JPEG (SOI + APP0)', bytes(0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46), 'jpeg'],
    ['PNG signature', bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13), 'png'],
    ['GIF87a', Buffer.from('GIF87a\x01\x00', 'latin1'), 'gif'],
    ['GIF89a', Buffer.from('GIF89a\x01\x00', 'latin1'), 'gif'],
    ['WebP (RIFF....WEBPVP8 )', Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1'), 'webp'],
    ['AVIF major brand', ftyp('avif', ['mif1', 'miaf', 'avif']), 'avif'],
    ['AVIF sequence', ftyp('avis', ['msf1', 'avis']), 'avif'],
    ['AVIF by compatible brand under a generic major', ftyp('mif1', ['mif1', 'avif']), 'avif'],
    ['HEIC major brand', ftyp('heic', ['mif1', 'heic']), 'heic'],
    ['HEIC heix', ftyp('heix', ['mif1']), 'heic'],
    ['HEIF sequence hevc', ftyp('hevc', ['msf1']), 'heic'],
    ['HEIF generic mif1 only', ftyp('mif1', ['mif1']), 'heic'],
    ['HEIC by compatible brand', ftyp('isom', ['heim', 'mif1']), 'heic'],
    ['TIFF little-endian', bytes(0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0), 'tiff'],
    ['TIFF big-endian', bytes(0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8), 'tiff'],
    ['BMP with BITMAPINFOHEADER', bmp(40), 'bmp'],
    ['BMP with BITMAPV5HEADER', bmp(124), 'bmp'],
  ];

  it.each(cases)('recognises %s', (_name, input, expected) => {
    expect(sniffMediaType(input)).toBe(expected);
  });

  const unknown: [string, Buffer][] = [
    ['empty input', Buffer.alloc(0)],
    ['plain text', Buffer.from('hello, world')],
    ['HTML', Buffer.from('<!doctype html><html>')],
    ['truncated PNG signature', bytes(0x89, 0x50, 0x4e)],
    ['RIFF that is not WebP (WAVE)', Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1')],
    ['MP4 video ftyp', ftyp('isom', ['isom', 'iso2', 'mp41'])],
    ['text starting with BM', Buffer.from('BMW owners club newsletter, issue 12')],
    ['ftyp box declaring a size past the input', Buffer.from('\x00\x00\x10\x00ftypisom', 'latin1')],
  ];

  it.each(unknown)('does not recognise %s', (_name, input) => {
    expect(sniffMediaType(input)).toBeUndefined();
  });
});

describe('MEDIA_TYPES and look-ups', () => {
  it('maps every format to its MIME type and extension, and back', () => {
    for (const [type, info] of Object.entries(MEDIA_TYPES)) {
      expect(info.mime).toMatch(/^image\/[a-z]+$/);
      expect(mediaTypeOfExtension(info.ext)).toEqual({ type, ...info });
      expect(mediaTypeOfMime(info.mime)).toEqual({ type, ...info });
    }
    expect(MEDIA_TYPES.jpeg).toMatchObject({ mime: 'image/jpeg', ext: 'jpg' });
    expect(MEDIA_TYPES.heic).toMatchObject({ mime: 'image/heic', ext: 'heic' });
    expect(MEDIA_TYPES.tiff).toMatchObject({ mime: 'image/tiff', ext: 'tiff' });
  });

  it('accepts common aliases, case and a leading dot', () => {
    expect(mediaTypeOfExtension('.JPEG')?.type).toBe('jpeg');
    expect(mediaTypeOfExtension('jpe')?.mime).toBe('image/jpeg');
    expect(mediaTypeOfExtension('TIF')?.ext).toBe('tiff');
    expect(mediaTypeOfExtension('heif')?.mime).toBe('image/heic');
    expect(mediaTypeOfMime('Image/JPG; charset=binary')?.ext).toBe('jpg');
    expect(mediaTypeOfMime('image/heif')?.type).toBe('heic');
  });

  it('answers undefined for formats it does not read', () => {
    expect(mediaTypeOfExtension('svg')).toBeUndefined();
    expect(mediaTypeOfExtension('')).toBeUndefined();
    expect(mediaTypeOfMime('text/plain')).toBeUndefined();
    expect(mediaTypeOfMime('image/svg+xml')).toBeUndefined();
  });
});

describe('the output side of the format table', () => {
  it('writes five formats; the others are written as PNG or JPEG', () => {
    const types = Object.keys(MEDIA_TYPES) as ImageMediaType[];
    expect(types.filter(isOutputMediaType).sort()).toEqual(['avif', 'jpeg', 'png', 'tiff', 'webp']);
    expect(types.filter((type) => !isOutputMediaType(type)).map((type) => [type, MEDIA_TYPES[type].writtenAs])).toEqual(
      [
        ['gif', 'png'],
        ['heic', 'jpeg'],
        ['bmp', 'png'],
      ],
    );
  });

  it('knows what each format holds', () => {
    expect(outputCapabilities('jpeg')).toMatchObject({ alpha: false, cmyk: true, grey: true });
    expect(outputCapabilities('webp')).toMatchObject({ alpha: true, cmyk: false, grey: false, maxSide: 16_383 });
    expect(outputCapabilities('avif').maxSide).toBe(16_384);
    // tiff holds CMYK pixels, but only jpeg is offered as a CMYK target
    expect(outputCapabilities('tiff')).toMatchObject({ cmyk: true, cmykOnRequest: false });
    const types = Object.keys(MEDIA_TYPES) as ImageMediaType[];
    expect(types.filter((type) => MEDIA_TYPES[type].output?.cmykOnRequest)).toEqual(['jpeg']);
  });
});
