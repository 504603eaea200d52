// Draws the sample images that the service serves at GET /samples/<name> (libs/storage/samples/README.md):
// product-like pictures made from SVG by sharp (librsvg), so that nothing third-party is shipped.
//   node scripts/make-samples.mjs
// The output is deterministic for one sharp/libvips build; the committed files are what the README's hashes say.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { bottle, mug, plant } from './sample-drawings.mjs';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'libs', 'storage', 'samples');

const samples = [
  { name: 'mug.jpg', svg: mug, encode: (image) => image.jpeg({ quality: 82, mozjpeg: true }) },
  { name: 'bottle.png', svg: bottle, encode: (image) => image.png({ compressionLevel: 9, palette: false }) },
  { name: 'plant.jpg', svg: plant, encode: (image) => image.jpeg({ quality: 82, mozjpeg: true }) },
];

for (const { name, svg, encode } of samples) {
  const bytes = await encode(sharp(Buffer.from(svg), { density: 72 })).toBuffer();
  writeFileSync(join(OUT, name), bytes);
  const { width, height, channels } = await sharp(bytes).metadata();
  const sha = createHash('sha256').update(bytes).digest('hex');
  process.stdout.write(`${name}: ${width} x ${height}, ${channels} channels, ${bytes.length} bytes, sha256 ${sha}\n`);
}
