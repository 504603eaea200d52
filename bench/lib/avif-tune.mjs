import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { percentile } from './load.mjs';

const require = createRequire(import.meta.url);

/** ipx's own copy of sharp (0.34.x, no `tune` option), to explain ipx's AVIF figures. */
function ipxSharp() {
  try {
    return createRequire(join(dirname(require.resolve('ipx')), '..', 'package.json'))('sharp');
  } catch {
    return undefined;
  }
}

/**
 * Side measurement: AVIF quality 50 with `tune: 'ssim'` (the service's choice) against sharp's default
 * `'auto'`, and against ipx's sharp with its defaults. Only the encode is timed, on the already resized
 * 1024x768 pixels, one at a time, the variants interleaved so that machine noise hits all alike.
 * @returns {Promise<Array<{label: string, ms: number, bytes: number}>>} median encode time and output size
 */
export async function avifTune(photo, size, runs) {
  const { data, info } = await sharp(photo)
    .autoOrient()
    .resize({ width: size.width, height: size.height, fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } };
  const other = ipxSharp();
  // As in the ipx server: the same libvips threads per image as the project's sharp (0.34 keeps 1 on glibc).
  other?.concurrency(sharp.concurrency());
  const variants = [
    { label: `sharp ${sharp.versions.sharp}, tune 'ssim' (service)`, encode: () => avif(sharp, data, raw, 'ssim') },
    { label: `sharp ${sharp.versions.sharp}, tune 'auto' (default)`, encode: () => avif(sharp, data, raw, 'auto') },
  ];
  if (other) {
    variants.push({
      label: `sharp ${other.versions.sharp} (ipx's copy), its default`,
      encode: () => other(data, raw).avif({ quality: 50 }).toBuffer(),
    });
  }
  const times = variants.map(() => []);
  const bytes = [];
  for (let run = 0; run < runs; run++) {
    for (const [i, variant] of variants.entries()) {
      const start = performance.now();
      const output = await variant.encode();
      times[i].push(performance.now() - start);
      bytes[i] = output.length;
    }
  }
  return variants.map((variant, i) => ({ label: variant.label, ms: percentile(times[i], 50), bytes: bytes[i] }));
}

function avif(lib, data, raw, tune) {
  return lib(data, raw).withIccProfile('srgb').avif({ quality: 50, tune }).toBuffer();
}
