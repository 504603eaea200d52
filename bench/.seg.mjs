import http from 'node:http';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { compositeSet } from '../test/fixtures/composites/composite-set.mjs';
const key = readFileSync(process.argv[2] + '/first-admin-key.txt', 'utf8').trim().split(/\s+/).pop();
const set = await compositeSet();
const pick = process.argv.slice(3);
const server = http.createServer((req, res) => { const i = Number(req.url.slice(1).split('.')[0]); res.writeHead(200, {'content-type':'image/jpeg'}); res.end(set[i].jpeg); });
await new Promise((r) => server.listen(0, '127.0.0.2', r));
const port = server.address().port;
const tiles = [];
for (const [i, c] of set.entries()) {
  if (pick.length && !pick.some((p) => c.name.includes(p))) continue;
  const r = await fetch('http://127.0.0.1:3911/v1/image/edit', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + key }, body: JSON.stringify({ input: `http://127.0.0.2:${port}/${i}.jpg`, operations: { background: { remove: true } }, output: { format: 'png' } }) });
  const body = await r.json();
  if (!body.data) { console.log(JSON.stringify(body)); continue; }
  const png = Buffer.from(await (await fetch(body.data.output.tmp_url)).arrayBuffer());
  const alpha = await sharp(png).extractChannel(3).png().toBuffer();
  const truth = await sharp(Buffer.from(c.truth), { raw: { width: 640, height: 640, channels: 1 } }).png().toBuffer();
  tiles.push(await sharp(c.jpeg).resize(256,256).png().toBuffer(), await sharp(alpha).resize(256,256).png().toBuffer(), await sharp(truth).resize(256,256).png().toBuffer());
}
await sharp({ create: { width: 768, height: 256 * tiles.length / 3, channels: 3, background: '#000' } }).composite(tiles.map((t, i) => ({ input: t, left: (i % 3) * 256, top: Math.floor(i / 3) * 256 }))).png().toFile('/tmp/seg.png');
server.close();
