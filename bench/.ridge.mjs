// prototype: boost weak ridges connected to strong parts
export function maxFilter(src, w, h, r) {
  const tmp = new Float32Array(w * h), out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) { let m = 0; for (let d = Math.max(0, x - r); d <= Math.min(w - 1, x + r); d++) { const v = src[y * w + d]; if (v > m) m = v; } tmp[y * w + x] = m; }
  for (let x = 0; x < w; x++) for (let y = 0; y < h; y++) { let m = 0; for (let d = Math.max(0, y - r); d <= Math.min(h - 1, y + r); d++) { const v = tmp[d * w + x]; if (v > m) m = v; } out[y * w + x] = m; }
  return out;
}
export function boost(m, w, h, { r, weak, strong, floor }) {
  const kept = new Uint8Array(w * h); const stack = [];
  for (let i = 0; i < m.length; i++) if (m[i] > strong) { kept[i] = 1; stack.push(i); }
  while (stack.length) { const at = stack.pop(); const x = at % w, y = (at - x) / w;
    for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) { const nx = x + dx, ny = y + dy; if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue; const n = ny * w + nx; if (!kept[n] && m[n] > weak) { kept[n] = 1; stack.push(n); } } }
  // dilate kept by r so the ridge's flanks are boosted too
  const keptF = Float32Array.from(kept); const near = maxFilter(keptF, w, h, r);
  const peak = maxFilter(m, w, h, r);
  const out = new Float32Array(m);
  for (let i = 0; i < m.length; i++) if (near[i] > 0 && peak[i] < 1) out[i] = Math.min(1, m[i] / Math.max(peak[i], floor));
  return out;
}
