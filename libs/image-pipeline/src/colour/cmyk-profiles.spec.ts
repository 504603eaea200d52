import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import type { CmykProfileName } from '../edit-plan';
import {
  CMYK_PROFILE_NAMES,
  CMYK_PROFILES,
  cmykProfilePath,
  iccColourSpace,
  iccDescription,
  iccDeviceClass,
  locateIccFolder,
} from './cmyk-profiles';

type Rgb = [number, number, number];

/**
 * The test chart. `inGamut` marks colours inside all four print gamuts: Argyll's relative colorimetric round
 * trip (xicclu -fb then -ff) returns each within 2 dE76 for every profile. sRGB primaries, secondaries, the
 * pure black and the dark patches fall outside at least the uncoated gamuts.
 */
const PATCHES: { name: string; rgb: Rgb; inGamut: boolean }[] = [
  { name: 'red', rgb: [255, 0, 0], inGamut: false },
  { name: 'green', rgb: [0, 255, 0], inGamut: false },
  { name: 'blue', rgb: [0, 0, 255], inGamut: false },
  { name: 'cyan', rgb: [0, 255, 255], inGamut: false },
  { name: 'magenta', rgb: [255, 0, 255], inGamut: false },
  { name: 'yellow', rgb: [255, 255, 0], inGamut: false },
  { name: 'white', rgb: [255, 255, 255], inGamut: false },
  { name: 'grey 75%', rgb: [192, 192, 192], inGamut: true },
  { name: 'grey 50%', rgb: [128, 128, 128], inGamut: true },
  { name: 'grey 25%', rgb: [64, 64, 64], inGamut: false },
  { name: 'light skin', rgb: [240, 200, 175], inGamut: true },
  { name: 'medium skin', rgb: [205, 150, 115], inGamut: true },
  { name: 'dark skin', rgb: [140, 90, 60], inGamut: false },
  { name: 'black', rgb: [0, 0, 0], inGamut: false },
  { name: 'rich dark', rgb: [10, 20, 40], inGamut: false },
  { name: 'teal', rgb: [70, 130, 130], inGamut: true },
  { name: 'rose', rgb: [190, 120, 130], inGamut: true },
  { name: 'sky', rgb: [130, 170, 210], inGamut: true },
  { name: 'sand', rgb: [210, 190, 140], inGamut: true },
  { name: 'sage', rgb: [140, 160, 120], inGamut: true },
  { name: 'lavender', rgb: [160, 150, 190], inGamut: true },
];

const PATCH = 24; // pixels per side
const COLUMNS = 7;
const WIDTH = COLUMNS * PATCH;
const HEIGHT = Math.ceil(PATCHES.length / COLUMNS) * PATCH;

/** The chart as a 3-channel sRGB image (no profile attached, which sharp reads as sRGB). */
function chart(): Buffer {
  const pixels = Buffer.alloc(WIDTH * HEIGHT * 3, 255);
  PATCHES.forEach(({ rgb }, index) => {
    const left = (index % COLUMNS) * PATCH;
    const top = Math.floor(index / COLUMNS) * PATCH;
    for (let y = top; y < top + PATCH; y++) {
      for (let x = left; x < left + PATCH; x++) pixels.set(rgb, (y * WIDTH + x) * 3);
    }
  });
  return pixels;
}

/** Mean of each channel over the inner half of every patch (away from JPEG block edges), 0..255. */
function patchMeans(data: Buffer, channels: number): number[][] {
  return PATCHES.map((_, index) => {
    const left = (index % COLUMNS) * PATCH + PATCH / 4;
    const top = Math.floor(index / COLUMNS) * PATCH + PATCH / 4;
    const sums = new Array<number>(channels).fill(0);
    for (let y = top; y < top + PATCH / 2; y++) {
      for (let x = left; x < left + PATCH / 2; x++) {
        for (let c = 0; c < channels; c++) sums[c] += data[(y * WIDTH + x) * channels + c];
      }
    }
    return sums.map((sum) => sum / (PATCH / 2) ** 2);
  });
}

/** sRGB (0..255) to CIELAB under D65 (IEC 61966-2-1 matrix). */
function srgbToLab(rgb: number[]): Rgb {
  const [r, g, b] = rgb.map((v) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
  const x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
  const y = 0.2126729 * r + 0.7151522 * g + 0.072175 * b;
  const z = (0.0193339 * r + 0.119192 * g + 0.9503041 * b) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

function deltaE76(a: number[], b: number[]): number {
  const [p, q] = [srgbToLab(a), srgbToLab(b)];
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

interface Separation {
  jpeg: Buffer;
  /** Per patch: C, M, Y, K in percent of full ink (0..100). */
  ink: number[][];
  /** Per patch: the JPEG decoded back to sRGB by sharp with the embedded profile, 0..255. */
  back: number[][];
}

const separations = new Map<CmykProfileName, Promise<Separation>>();

/** The chart converted as the service converts: sRGB to CMYK JPEG with sharp's perceptual intent. */
function separate(name: CmykProfileName): Promise<Separation> {
  const cached = separations.get(name);
  if (cached) return cached;
  const run = (async () => {
    const jpeg = await sharp(chart(), { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
      .withIccProfile(cmykProfilePath(name))
      .jpeg({ quality: 95 })
      .toBuffer();
    // A CMYK pipeline reads the stored ink values as they are (255 = solid ink), with no conversion.
    const cmyk = await sharp(jpeg).pipelineColourspace('cmyk').toColourspace('cmyk').raw().toBuffer();
    const rgb = await sharp(jpeg).toColourspace('srgb').raw().toBuffer();
    const ink = patchMeans(cmyk, 4).map((channels) => channels.map((v) => (v / 255) * 100));
    return { jpeg, ink, back: patchMeans(rgb, 3) };
  })();
  separations.set(name, run);
  return run;
}

const patchIndex = (name: string) => PATCHES.findIndex((patch) => patch.name === name);
const totalInk = (ink: number[]) => ink.reduce((sum, v) => sum + v, 0);
/** Rounding each channel to 8 bits and JPEG quantisation of a flat patch stay well under this (percent). */
const TAC_TOLERANCE = 2;

describe.each(CMYK_PROFILE_NAMES)('CMYK profile %s', (name) => {
  const profile = CMYK_PROFILES[name];

  it('writes a 4-channel CMYK JPEG with the profile embedded', async () => {
    const { jpeg } = await separate(name);
    const metadata = await sharp(jpeg).metadata();
    expect(metadata.format).toBe('jpeg');
    expect(metadata.space).toBe('cmyk');
    expect(metadata.channels).toBe(4);
    expect(metadata.icc).toBeDefined();
    const icc = metadata.icc!;
    expect(iccDescription(icc)).toBe(profile.description);
    expect(iccColourSpace(icc)).toBe('CMYK');
    expect(iccDeviceClass(icc)).toBe('prtr');
  });

  it(`keeps every patch within ${profile.totalAreaCoverage}% total ink and spends it on black`, async () => {
    const { ink } = await separate(name);
    for (const patch of ink) expect(totalInk(patch)).toBeLessThanOrEqual(profile.totalAreaCoverage + TAC_TOLERANCE);
    // The limit binds: the darkest black the profile can make uses (nearly) the whole budget.
    expect(totalInk(ink[patchIndex('black')])).toBeGreaterThan(profile.totalAreaCoverage - 15);
    expect(totalInk(ink[patchIndex('rich dark')])).toBeGreaterThan(150);
    expect(totalInk(ink[patchIndex('white')])).toBeLessThan(1);
  });

  it('converts back to sRGB close to the source on in-gamut colours', async () => {
    const { back } = await separate(name);
    const errors = PATCHES.flatMap((patch, index) => (patch.inGamut ? [deltaE76(patch.rgb, back[index])] : []));
    const mean = errors.reduce((sum, e) => sum + e, 0) / errors.length;
    // Measured: mean 2.1 to 3.1 and worst 5.8 to 6.9 (sky, lavender) dE76. The perceptual tables compress
    // the whole sRGB gamut (its blues lie up to ~100 dE outside) into the print gamut, so in-gamut colours move
    // a little too; a wrong or inverted separation is tens of dE off.
    expect(mean).toBeLessThan(4);
    expect(Math.max(...errors)).toBeLessThan(8);
  });
});

describe('CMYK profiles', () => {
  it('give each profile its own ink limit', async () => {
    const black = await Promise.all(
      CMYK_PROFILE_NAMES.map(async (name) => totalInk((await separate(name)).ink[patchIndex('black')])),
    );
    const byName = Object.fromEntries(CMYK_PROFILE_NAMES.map((name, i) => [name, black[i]]));
    // ISO_Coated uses ink a 300% profile may not; USWeb_Uncoated stays below what the 300% profiles use.
    expect(byName.ISO_Coated).toBeGreaterThan(300 + TAC_TOLERANCE);
    expect(byName.USWeb_Uncoated).toBeLessThan(260 + TAC_TOLERANCE);
    expect(Math.min(byName.ISO_Uncoated, byName.USWeb_Coated)).toBeGreaterThan(260 + TAC_TOLERANCE);
  });

  it('have distinct descriptions naming their data and limit', () => {
    const descriptions = CMYK_PROFILE_NAMES.map((name) => CMYK_PROFILES[name].description);
    expect(new Set(descriptions).size).toBe(4);
    for (const name of CMYK_PROFILE_NAMES) {
      expect(CMYK_PROFILES[name].description).toContain(`${name} (`);
      expect(CMYK_PROFILES[name].description).toContain(`TAC ${CMYK_PROFILES[name].totalAreaCoverage}%`);
    }
  });
});

describe('cmykProfilePath', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'atelier-icc-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('returns an absolute path to an existing file for every name', () => {
    for (const name of CMYK_PROFILE_NAMES) {
      const path = cmykProfilePath(name);
      expect(isAbsolute(path)).toBe(true);
      expect(existsSync(path)).toBe(true);
      expect(path.endsWith(join('libs', 'image-pipeline', 'icc', `${name}.icc`))).toBe(true);
    }
  });

  it('throws when the profile file is missing', () => {
    const empty = join(scratch, 'empty');
    mkdirSync(empty);
    expect(() => cmykProfilePath('ISO_Coated', empty)).toThrow(/ISO_Coated is missing/);
  });

  it('finds the icc folder above the compiled dist/ folder, and throws when there is none', () => {
    const icc = join(scratch, 'app', 'libs', 'image-pipeline', 'icc');
    const compiled = join(scratch, 'app', 'dist', 'libs', 'image-pipeline', 'src', 'colour');
    mkdirSync(icc, { recursive: true });
    mkdirSync(compiled, { recursive: true });
    expect(locateIccFolder(compiled)).toBe(icc);
    expect(() => locateIccFolder(join(scratch, 'empty'))).toThrow(/no libs\/image-pipeline\/icc folder/);
  });
});

describe('ICC header readers', () => {
  it('read an RGB profile embedded by sharp', async () => {
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#808080' } })
      .withIccProfile('srgb')
      .png()
      .toBuffer();
    const { icc } = await sharp(png).metadata();
    expect(iccColourSpace(icc!)).toBe('RGB ');
    expect(iccDeviceClass(icc!)).toBe('mntr');
    expect(iccDescription(icc!)).toMatch(/sRGB/i);
  });

  it('read a v4 multi-localised description', () => {
    expect(iccDescription(v4Profile('Atelier test ✓'))).toBe('Atelier test ✓');
  });

  it('throw for bytes that are not a profile', () => {
    expect(() => iccColourSpace(Buffer.alloc(200))).toThrow(/Not an ICC profile/);
  });
});

/** A minimal ICC v4 header with one `desc` tag of type `mluc` (one en-US record in UTF-16BE). */
function v4Profile(text: string): Buffer {
  const utf16 = Buffer.from(text, 'utf16le').swap16();
  const tag = Buffer.alloc(28 + utf16.length);
  tag.write('mluc', 0, 'latin1');
  tag.writeUInt32BE(1, 8); // records
  tag.writeUInt32BE(12, 12); // record size
  tag.write('enUS', 16, 'latin1');
  tag.writeUInt32BE(utf16.length, 20);
  tag.writeUInt32BE(28, 24);
  utf16.copy(tag, 28);
  const header = Buffer.alloc(128 + 4 + 12);
  header.write('mntrRGB XYZ ', 12, 'latin1');
  header.write('acsp', 36, 'latin1');
  header.writeUInt32BE(1, 128);
  header.write('desc', 132, 'latin1');
  header.writeUInt32BE(header.length, 136);
  header.writeUInt32BE(tag.length, 140);
  const icc = Buffer.concat([header, tag]);
  icc.writeUInt32BE(icc.length, 0);
  return icc;
}
