import { readFileSync } from 'node:fs';
import sharp from 'sharp';
const ids = process.argv.slice(2).map(Number);
const tiles = [];
for (const i of ids) tiles.push(await sharp(readFileSync(`/tmp/tune/${i}.mask`), { raw: { width: 320, height: 320, channels: 1 } }).linear(3, 0).png().toBuffer());
await sharp({ create: { width: 320 * tiles.length, height: 320, channels: 3, background: '#000' } }).composite(tiles.map((t, k) => ({ input: t, left: k * 320, top: 0 }))).png().toFile('/tmp/coarse.png');
