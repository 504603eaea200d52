import { readFileSync } from 'node:fs';
import http from 'node:http';
import sharp from 'sharp';
const key = readFileSync(process.argv[2] + '/first-admin-key.txt', 'utf8').trim().split(/\s+/).pop();
const W = 4000, H = 3000;
const shape = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><defs><linearGradient id="m" x1="0" x2="1"><stop offset="0" stop-color="#8a1c1c"/><stop offset="0.5" stop-color="#f08a7a"/><stop offset="1" stop-color="#6e1414"/></linearGradient></defs>
<path d="M2300 900 C3000 900 3000 2300 2250 2250 L2250 2000 C2750 2050 2750 1150 2300 1150 Z" fill="#a82620"/>
<path d="M1000 500 L2400 500 L2300 2600 Q1700 2750 1100 2600 Z" fill="url(#m)"/></svg>`;
const obj = await sharp(Buffer.from(shape)).png().toBuffer();
const bg = [40, 120, 200];
const jpeg = await sharp({ create: { width: W, height: H, channels: 3, background: { r: bg[0], g: bg[1], b: bg[2] } } }).composite([{ input: obj }]).jpeg({ quality: 92 }).toBuffer();
const truth = await sharp(obj).extractChannel(3).raw().toBuffer();
const server = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'image/jpeg' }); res.end(jpeg); });
await new Promise((r) => server.listen(0, '127.0.0.2', r));
const t0 = Date.now();
const r = await fetch('http://127.0.0.1:3911/v1/image/edit', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + key }, body: JSON.stringify({ input: `http://127.0.0.2:${server.address().port}/x.jpg`, operations: { background: { remove: true } }, output: { format: 'png' } }) });
const body = await r.json(); const ms = Date.now() - t0;
server.close();
const png = Buffer.from(await (await fetch(body.data.output.tmp_url)).arrayBuffer());
const { data } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
let both = 0, either = 0, bandN = 0, bandErr = 0, soft = 0, leak = 0, edgeN = 0;
for (let y = 4; y < H - 4; y++) for (let x = 4; x < W - 4; x++) {
  const i = y * W + x, a = data[i * 4 + 3], t = truth[i];
  if (a > 127 && t > 127) both++; if (a > 127 || t > 127) either++;
  const edge = [-3, 3].some((d) => (truth[i + d] > 127) !== (t > 127) || (truth[i + d * W] > 127) !== (t > 127));
  if (edge) { bandN++; bandErr += Math.abs(a - t); if (a > 0 && a < 255) soft++; }
  if (edge && t > 250 && a > 64) { edgeN++; const o = i * 4; const dB = Math.hypot(data[o] - bg[0], data[o + 1] - bg[1], data[o + 2] - bg[2]); if (dB < 80) leak++; }
}
console.log(JSON.stringify({ ms, iou: (both / either).toFixed(4), bandMeanAbsErr: (bandErr / bandN).toFixed(1), softShare: (soft / bandN).toFixed(3), leakShare: (leak / edgeN).toFixed(4) }));
await sharp(png).extract({ left: 2150, top: 2150, width: 300, height: 200 }).resize(900, 600, { kernel: 'nearest' }).flatten({ background: '#fff' }).png().toFile(process.argv[3] ?? '/tmp/rim.png');
