import type { RawPixels } from '../workers/raw-pixels';

export interface GridCutInput {
  width: number;
  height: number;
  /** The guide image of the pairwise terms (3 or 4 channels). */
  image: RawPixels;
  /** The cost of labelling each pixel foreground / background (>= 0; read only where free). */
  fgCost: Float32Array;
  bgCost: Float32Array;
  /** 0 = free, 1 = fixed foreground, 2 = fixed background. */
  fixed: Uint8Array;
  /** The weight of the contrast-sensitive smoothness term (GrabCut's gamma). */
  smoothness: number;
}

/** Costs are cut in integers of this many per unit: exact arithmetic in the flow, no residue of rounding. */
const SCALE = 64;
const TERMINAL = -2;
const NONE = -1;
const FREE = 0;
const SOURCE = 1;
const SINK = 2;
/** The 8 neighbours: the first four "forward" (each pair of free pixels is met once forward). */
const NEIGHBOURS: readonly (readonly [number, number])[] = [
  [1, 0],
  [-1, 1],
  [0, 1],
  [1, 1],
  [-1, 0],
  [1, -1],
  [0, -1],
  [-1, -1],
];

/** Calls `visit(v, pixel, neighbour, diagonal, forward)` for each in-image neighbour of each free pixel. */
function forEachNeighbour(
  width: number,
  height: number,
  pixels: Int32Array,
  visit: (v: number, a: number, b: number, diagonal: boolean, forward: boolean) => void,
): void {
  for (let v = 0; v < pixels.length; v++) {
    const a = pixels[v];
    const x = a % width;
    const y = (a - x) / width;
    for (let k = 0; k < NEIGHBOURS.length; k++) {
      const [dx, dy] = NEIGHBOURS[k];
      const nx = x + dx;
      const ny = y + dy;
      if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
      visit(v, a, ny * width + nx, dx !== 0 && dy !== 0, k < 4);
    }
  }
}

/**
 * The labelling of least energy: sum of unary costs plus, for every pair of 8-connected pixels labelled apart,
 * gamma * exp(-beta |z_m - z_n|^2) / distance (GrabCut's contrast-sensitive term; beta = 1 / (2 <|dz|^2>) over the
 * free pixels' pairs). Solved exactly as a minimum s-t cut, foreground on the source side, by the max-flow
 * algorithm of Boykov and Kolmogorov ("An experimental comparison of min-cut/max-flow algorithms for energy
 * minimization in vision", PAMI 2004): two search trees grown from the terminals, reused after each augmentation.
 * The graph holds only the free pixels; a fixed neighbour's pair becomes a terminal capacity of its free pixel,
 * so time and memory follow the unknown region, not the image: about 130 bytes a free pixel (eight arcs of
 * head, sister and capacity, 96; the node's own state), plus a 4-byte index per pixel of the image.
 * Returns 1 (foreground) or 0 per pixel, fixed pixels as fixed.
 */
export function cutGrid(input: GridCutInput): Uint8Array {
  const { width, height, fixed } = input;
  const n = width * height;
  const node = new Int32Array(n).fill(-1);
  let free = 0;
  for (let i = 0; i < n; i++) if (fixed[i] === 0) node[i] = free++;
  const pixels = new Int32Array(free);
  for (let i = 0; i < n; i++) if (node[i] >= 0) pixels[node[i]] = i;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = fixed[i] === 1 ? 1 : 0;
  if (free === 0) return out;
  const graph = buildGraph(input, node, pixels);
  const inSource = maxFlow(graph);
  for (let v = 0; v < pixels.length; v++) out[pixels[v]] = inSource[v];
  return out;
}

interface Graph {
  nodes: number;
  /** Arcs of node v: first[v] .. first[v + 1] - 1. */
  first: Int32Array;
  head: Int32Array;
  sister: Int32Array;
  capacity: Int32Array;
  /** Net terminal capacity: > 0 from the source, < 0 to the sink. */
  terminal: Int32Array;
}

function buildGraph(input: GridCutInput, node: Int32Array, pixels: Int32Array): Graph {
  const { width, height, image, fgCost, bgCost, fixed, smoothness } = input;
  const beta = contrastBeta(input, pixels);
  const weight = (a: number, b: number, diagonal: boolean) => {
    const { data, channels } = image;
    const dr = data[a * channels] - data[b * channels];
    const dg = data[a * channels + 1] - data[b * channels + 1];
    const db = data[a * channels + 2] - data[b * channels + 2];
    const w = (smoothness * Math.exp(-beta * (dr * dr + dg * dg + db * db))) / (diagonal ? Math.SQRT2 : 1);
    return Math.round(w * SCALE);
  };
  const nodes = pixels.length;
  // source side: the cost of labelling a pixel background; sink side: of labelling it foreground
  const toSource = new Float64Array(nodes);
  const toSink = new Float64Array(nodes);
  for (let v = 0; v < nodes; v++) {
    toSource[v] = bgCost[pixels[v]];
    toSink[v] = fgCost[pixels[v]];
  }
  const degree = new Int32Array(nodes);
  forEachNeighbour(width, height, pixels, (v, a, b, diagonal) => {
    if (fixed[b] === 0) {
      degree[v]++;
      return;
    }
    const w = weight(a, b, diagonal) / SCALE;
    if (fixed[b] === 1) toSource[v] += w;
    else toSink[v] += w;
  });
  const first = new Int32Array(nodes + 1);
  for (let v = 0; v < nodes; v++) first[v + 1] = first[v] + degree[v];
  const arcs = first[nodes];
  const head = new Int32Array(arcs);
  const sister = new Int32Array(arcs);
  const capacity = new Int32Array(arcs);
  const fill = first.slice(0, nodes);
  forEachNeighbour(width, height, pixels, (u, a, b, diagonal, forward) => {
    if (!forward || fixed[b] !== 0) return;
    const v = node[b];
    const w = weight(a, b, diagonal);
    const uv = fill[u]++;
    const vu = fill[v]++;
    head[uv] = v;
    head[vu] = u;
    sister[uv] = vu;
    sister[vu] = uv;
    capacity[uv] = w;
    capacity[vu] = w;
  });
  const terminal = new Int32Array(nodes);
  for (let v = 0; v < nodes; v++) terminal[v] = Math.round((toSource[v] - toSink[v]) * SCALE);
  return { nodes, first, head, sister, capacity, terminal };
}

/** beta = 1 / (2 <|dz|^2>) over the free pixels' right and lower neighbours. */
function contrastBeta({ image, width, height }: GridCutInput, pixels: Int32Array): number {
  const { data, channels } = image;
  let sum = 0;
  let count = 0;
  for (const a of pixels) {
    const x = a % width;
    for (const b of [x + 1 < width ? a + 1 : -1, a + width < width * height ? a + width : -1]) {
      if (b < 0) continue;
      for (let c = 0; c < 3; c++) {
        const d = data[a * channels + c] - data[b * channels + c];
        sum += d * d;
      }
      count++;
    }
  }
  return count === 0 || sum === 0 ? 0 : 1 / (2 * (sum / count));
}

/** Boykov-Kolmogorov max-flow; answers 1 for the nodes on the source side of the minimum cut. */
function maxFlow(graph: Graph): Uint8Array {
  const { nodes, first, head, sister, capacity, terminal } = graph;
  const tree = new Uint8Array(nodes);
  const parent = new Int32Array(nodes).fill(NONE);
  const stamp = new Int32Array(nodes);
  const dist = new Int32Array(nodes);
  const active = new Int32Array(nodes + 1);
  const queued = new Uint8Array(nodes);
  let qHead = 0;
  let qSize = 0;
  const activate = (v: number) => {
    if (queued[v]) return;
    queued[v] = 1;
    active[(qHead + qSize++) % active.length] = v;
  };
  const orphans: number[] = [];
  for (let v = 0; v < nodes; v++) {
    if (terminal[v] === 0) continue;
    tree[v] = terminal[v] > 0 ? SOURCE : SINK;
    parent[v] = TERMINAL;
    dist[v] = 1;
    activate(v);
  }
  let time = 0;
  while (qSize > 0) {
    const p = active[qHead];
    if (tree[p] === FREE) {
      queued[p] = 0;
      qHead = (qHead + 1) % active.length;
      qSize--;
      continue;
    }
    // grow: the first arc to the other tree is a path
    let bridge = -1;
    for (let a = first[p]; a < first[p + 1] && bridge < 0; a++) {
      const q = head[a];
      const open = tree[p] === SOURCE ? capacity[a] > 0 : capacity[sister[a]] > 0;
      if (!open) continue;
      if (tree[q] === FREE) {
        tree[q] = tree[p];
        parent[q] = sister[a];
        stamp[q] = stamp[p];
        dist[q] = dist[p] + 1;
        activate(q);
      } else if (tree[q] !== tree[p]) bridge = tree[p] === SOURCE ? a : sister[a];
    }
    if (bridge < 0) {
      queued[p] = 0;
      qHead = (qHead + 1) % active.length;
      qSize--;
      continue;
    }
    time++;
    augment(bridge);
    while (orphans.length > 0) adopt(orphans.pop()!);
  }

  /** Pushes the bottleneck along source -> ... -> tail(bridge) -> head(bridge) -> ... -> sink. */
  function augment(bridge: number): void {
    const s = head[sister[bridge]];
    const t = head[bridge];
    let flow = capacity[bridge];
    // the bottleneck: along the source tree up to its root, whose terminal capacity counts too, then the sink's
    for (let v = s; ; v = head[parent[v]]) {
      if (parent[v] === TERMINAL) {
        flow = Math.min(flow, terminal[v]);
        break;
      }
      flow = Math.min(flow, capacity[sister[parent[v]]]);
    }
    for (let v = t; ; v = head[parent[v]]) {
      if (parent[v] === TERMINAL) {
        flow = Math.min(flow, -terminal[v]);
        break;
      }
      flow = Math.min(flow, capacity[parent[v]]);
    }
    capacity[bridge] -= flow;
    capacity[sister[bridge]] += flow;
    for (let v = s; ;) {
      const a = parent[v];
      if (a === TERMINAL) {
        terminal[v] -= flow;
        if (terminal[v] === 0) orphan(v);
        break;
      }
      capacity[sister[a]] -= flow;
      capacity[a] += flow;
      const up = head[a];
      if (capacity[sister[a]] === 0) orphan(v);
      v = up;
    }
    for (let v = t; ;) {
      const a = parent[v];
      if (a === TERMINAL) {
        terminal[v] += flow;
        if (terminal[v] === 0) orphan(v);
        break;
      }
      capacity[a] -= flow;
      capacity[sister[a]] += flow;
      const up = head[a];
      if (capacity[a] === 0) orphan(v);
      v = up;
    }
  }

  function orphan(v: number): void {
    parent[v] = NONE;
    orphans.push(v);
  }

  /** The distance of `v` to its terminal through valid parents, or Infinity when its origin is an orphan. */
  function originDistance(v: number): number {
    let d = 0;
    let at = v;
    for (;;) {
      if (stamp[at] === time) {
        d += dist[at];
        break;
      }
      const a = parent[at];
      d++;
      if (a === TERMINAL) {
        stamp[at] = time;
        dist[at] = 1;
        break;
      }
      if (a === NONE) return Infinity;
      at = head[a];
    }
    // mark the path with this search's time, so later searches stop early
    for (let u = v, du = d; stamp[u] !== time; u = head[parent[u]], du--) {
      stamp[u] = time;
      dist[u] = du;
    }
    return d;
  }

  function adopt(v: number): void {
    const side = tree[v];
    let best = NONE;
    let bestD = Infinity;
    for (let a = first[v]; a < first[v + 1]; a++) {
      const q = head[a];
      if (tree[q] !== side) continue;
      const open = side === SOURCE ? capacity[sister[a]] > 0 : capacity[a] > 0;
      if (!open) continue;
      const d = originDistance(q);
      if (d < bestD) {
        bestD = d;
        best = a;
      }
    }
    if (best !== NONE) {
      parent[v] = best;
      stamp[v] = time;
      dist[v] = bestD + 1;
      return;
    }
    for (let a = first[v]; a < first[v + 1]; a++) {
      const q = head[a];
      if (tree[q] !== side) continue;
      const open = side === SOURCE ? capacity[sister[a]] > 0 : capacity[a] > 0;
      if (open) activate(q);
      if (parent[q] !== TERMINAL && parent[q] !== NONE && head[parent[q]] === v) orphan(q);
    }
    tree[v] = FREE;
  }

  return Uint8Array.from(tree, (side) => (side === SOURCE ? 1 : 0));
}
