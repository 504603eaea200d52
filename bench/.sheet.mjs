import sharp from 'sharp';
import { compositeSet } from '../test/fixtures/composites/composite-set.mjs';
const set = await compositeSet();
console.log(set.length);
const tiles = await Promise.all(set.map((c) => sharp(c.jpeg).resize(160, 160).png().toBuffer()));
const cols = 8, rows = Math.ceil(tiles.length / cols);
await sharp({ create: { width: cols * 160, height: rows * 160, channels: 3, background: '#000' } })
  .composite(tiles.map((t, i) => ({ input: t, left: (i % cols) * 160, top: Math.floor(i / cols) * 160 })))
  .png().toFile('/tmp/sheet.png');
