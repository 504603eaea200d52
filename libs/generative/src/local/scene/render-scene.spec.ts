import { describe, expect, it } from 'vitest';
import { renderScene, type SceneRenderInput } from './render-scene';

const W = 320;
const H = 320;
const WHITE = { r: 244, g: 244, b: 244 };

/** An upright box (a carton, a bottle's body): columns left..right, rows top..base inclusive, opaque red. */
function box(left: number, right: number, top: number, base: number): Uint8Array {
  const object = new Uint8Array(W * H * 4);
  for (let y = top; y <= base; y++) for (let x = left; x <= right; x++) object.set([200, 40, 40, 255], (y * W + x) * 4);
  return object;
}

/** A disc (a plate, a watch seen from above). */
function disc(cx: number, cy: number, r: number): Uint8Array {
  const object = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++)
      if ((x - cx) ** 2 + (y - cy) ** 2 <= r * r) object.set([40, 60, 200, 255], (y * W + x) * 4);
  return object;
}

const STANDING = box(130, 190, 100, 280);

/** A pot (rows 230..280, 36 px wide) under a crown of leaves (an ellipse 140 px wide ending at row 196) on a stem. */
function potted(): Uint8Array {
  const object = box(142, 178, 230, 280);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const leaves = ((x - 160) / 70) ** 2 + ((y - 150) / 46) ** 2 <= 1;
      const stem = x >= 157 && x <= 163 && y > 150 && y < 230;
      if (leaves || stem) object.set([60, 150, 70, 255], (y * W + x) * 4);
    }
  return object;
}

function render(extra: Partial<SceneRenderInput>, object = STANDING) {
  return renderScene({
    width: W,
    height: H,
    object,
    background: { kind: 'shadows', colour: WHITE, view: 'auto' },
    preference: 'optimal',
    seed: 1,
    variant: 0,
    ...extra,
  });
}

const at = (data: Uint8Array, channels: number, x: number, y: number, c = 0) => data[(y * W + x) * channels + c];

/** A grey template with structure (a diagonal gradient and stripes), 3 channels. */
function template(): Uint8Array {
  const data = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const v = 90 + ((x + y) / (W + H)) * 100 + ((x >> 3) % 2) * 30;
      data.set([v, v + 4, v - 4], (y * W + x) * 3);
    }
  return data;
}

describe('renderScene: shadows', () => {
  for (const view of ['top', 'front'] as const) {
    it(`${view}: darker just under the base than the backdrop, untouched far away`, () => {
      const { data, channels } = render({ background: { kind: 'shadows', colour: WHITE, view } });
      expect(channels).toBe(3);
      expect(at(data, 3, 160, 283)).toBeLessThan(WHITE.r - 20);
      for (const [x, y] of [
        [5, 5],
        [315, 5],
        [5, 315],
        [315, 315],
        [40, 200],
        [280, 60],
      ])
        expect([0, 1, 2].map((c) => at(data, 3, x, y, c))).toEqual([WHITE.r, WHITE.g, WHITE.b]);
    });
  }

  it('front lays the shadow low on the floor behind, away from the light; top throws it towards the viewer; neither climbs the sides', () => {
    const front = render({ background: { kind: 'shadows', colour: WHITE, view: 'front' } }).data;
    const top = render({ background: { kind: 'shadows', colour: WHITE, view: 'top' } }).data;
    // Behind: above the base, beyond the right edge (variant 0's light is on the left).
    expect(at(front, 3, 205, 270)).toBeLessThan(WHITE.r - 15);
    expect(at(top, 3, 205, 270)).toBeGreaterThan(at(front, 3, 205, 270) + 10);
    // Towards the viewer: below the base, to the right.
    expect(at(top, 3, 205, 300)).toBeLessThan(WHITE.r - 15);
    expect(at(top, 3, 205, 300)).toBeLessThan(at(front, 3, 205, 300) - 10);
    // Beside the body above its lowest third, in both views: the backdrop untouched.
    for (const data of [front, top])
      for (let y = 100; y < 220; y += 4) {
        expect(at(data, 3, 124, y)).toBe(WHITE.r);
        expect(at(data, 3, 196, y)).toBe(WHITE.r);
      }
  });

  it('a potted plant: both shadows start at the pot, none under the leaves', () => {
    const plant = potted();
    for (const view of ['top', 'front'] as const) {
      const { data } = render({ background: { kind: 'shadows', colour: WHITE, view } }, plant);
      expect(at(data, 3, 160, 283), `${view}: under the pot`).toBeLessThan(WHITE.r - 40);
      // just under the leaves, left and right of the pot, well above the floor
      for (const x of [95, 110, 210, 225]) for (const y of [200, 206, 212]) expect(at(data, 3, x, y)).toBe(WHITE.r);
    }
    expect(render({}, plant).details.view).toBe('front');
  });

  it('a glossy floor mirrors the plant under its pot, not each leaf under itself', () => {
    const scene = (prompt: string) => render({ background: { kind: 'prompt' }, prompt }, potted()).data;
    const glossy = scene('glossy white');
    const matte = scene('matte white');
    for (const x of [95, 110, 210, 225])
      for (const y of [200, 206, 212]) expect(at(glossy, 3, x, y)).toBe(at(matte, 3, x, y));
    expect(Math.abs(at(glossy, 3, 160, 286) - at(matte, 3, 160, 286))).toBeGreaterThan(3);
  });

  it('a flat object seen from above (a disc): its whole outline offset away from the light, softly', () => {
    const { data } = render({ background: { kind: 'shadows', colour: WHITE, view: 'top' } }, disc(160, 140, 70));
    // variant 0: light from the left, so the shadow lies right and below; the left and top edges stay light
    expect(at(data, 3, 234, 150)).toBeLessThan(WHITE.r - 15);
    expect(at(data, 3, 160, 214)).toBeLessThan(WHITE.r - 15);
    expect(at(data, 3, 86, 140)).toBeGreaterThan(at(data, 3, 234, 150) + 10);
  });

  it('auto picks front for a flat base low on the canvas, top for a round outline or a high one', () => {
    expect(render({}).details.view).toBe('front');
    expect(render({}, disc(160, 160, 70)).details.view).toBe('top');
    expect(render({}, box(130, 190, 20, 120)).details.view).toBe('top');
  });

  it('transparent: 4 channels, black, alpha only in the shadow', () => {
    const { data, channels } = render({ background: { kind: 'shadows', colour: 'transparent', view: 'front' } });
    expect(channels).toBe(4);
    expect(at(data, 4, 160, 283, 3)).toBeGreaterThan(40);
    for (const [x, y] of [
      [5, 5],
      [315, 315],
      [40, 200],
      [280, 60],
    ])
      expect(at(data, 4, x, y, 3)).toBe(0);
    for (let i = 0; i < data.length; i += 4) expect(data[i] | data[i + 1] | data[i + 2]).toBe(0);
  });

  it('variants differ visibly; each is deterministic', () => {
    const images = [0, 1, 2, 3].map((variant) => render({ variant }).data);
    for (let a = 0; a < 4; a++)
      for (let b = a + 1; b < 4; b++) expect(meanDifference(images[a], images[b])).toBeGreaterThan(0.3);
    expect(Buffer.from(render({ variant: 2 }).data).equals(Buffer.from(images[2]))).toBe(true);
  });
});

describe('renderScene: any canvas', () => {
  it('an empty mask: the backdrop alone, no shadow', () => {
    const { data, details } = render({}, new Uint8Array(W * H * 4));
    expect(details.view).toBe('top');
    expect(new Set(data).size).toBe(1);
  });

  it('a wide canvas (16:9) with an object near its right edge: shadow under it, none on the left', () => {
    const width = 480;
    const height = 270;
    const object = new Uint8Array(width * height * 4);
    for (let y = 120; y <= 250; y++)
      for (let x = 400; x <= 470; x++) object.set([20, 20, 20, 255], (y * width + x) * 4);
    for (const background of [{ kind: 'prompt' } as const, { kind: 'shadows', colour: WHITE, view: 'top' } as const]) {
      const { data } = renderScene({ width, height, object, background, preference: 'fast', seed: 4, variant: 3 });
      expect(data.length).toBe(width * height * 3);
      const under = data[(253 * width + 435) * 3];
      expect(under).toBeLessThan(data[(253 * width + 300) * 3] - 15);
    }
  });
});

describe('renderScene: prompt', () => {
  const prompt = (text: string, extra: Partial<SceneRenderInput> = {}) =>
    render({ prompt: text, background: { kind: 'prompt' }, ...extra });

  it('reads surface and words, reports the ignored ones, and is the same bytes for the same seed', () => {
    const first = prompt('a vase on concrete, warm light, bokeh');
    expect(first.details).toMatchObject({ surface: 'concrete', lights: 'warm', ignored: 'vase bokeh' });
    expect(Buffer.from(prompt('a vase on concrete, warm light, bokeh').data).equals(Buffer.from(first.data))).toBe(
      true,
    );
    expect(meanDifference(prompt('concrete', { seed: 2 }).data, prompt('concrete').data)).toBeGreaterThan(0.5);
  });

  it('the four variants differ visibly', () => {
    const images = [0, 1, 2, 3].map((variant) => prompt('white studio', { variant }).data);
    for (let a = 0; a < 4; a++)
      for (let b = a + 1; b < 4; b++) expect(meanDifference(images[a], images[b])).toBeGreaterThan(1);
  });

  it('a wall above a floor, darker under the object, the colour given', () => {
    const { data, details } = prompt('studio', { background: { kind: 'prompt', colour: { r: 60, g: 110, b: 190 } } });
    expect(details.palette).toMatch(/^#3c6ebe #3c6ebe/);
    const beside = at(data, 3, 60, 290, 2);
    expect(at(data, 3, 60, 40, 2)).toBeGreaterThan(at(data, 3, 60, 40, 0) + 60);
    expect(at(data, 3, 160, 284, 2)).toBeLessThan(beside - 20);
  });

  it('glossy: the object mirrored under its base', () => {
    const matte = prompt('white studio').data;
    const glossy = prompt('white glossy studio').data;
    const redness = (data: Uint8Array) => at(data, 3, 160, 292, 0) - at(data, 3, 160, 292, 2);
    expect(prompt('white glossy studio').details.reflection).toBe('yes');
    expect(redness(glossy)).toBeGreaterThan(redness(matte) + 10);
  });

  it('every surface renders with visible texture on the floor', () => {
    for (const surface of ['marble', 'wood', 'concrete', 'stone', 'paper', 'linen', 'sand', 'terrazzo']) {
      const { data, details } = prompt(surface);
      expect(details.surface).toBe(surface);
      expect(rowSpread(data, 300), surface).toBeGreaterThan(1);
    }
    expect(rowSpread(prompt('plain').data, 300)).toBeLessThan(2.5);
  });
});

describe('renderScene: templates', () => {
  const scene = (mode: 'lock' | 'adjust' | 'transform', extra: Partial<SceneRenderInput> = {}) =>
    render({ background: { kind: 'template', template: template(), mode, view: 'front' }, ...extra });

  it('lock keeps every byte outside the object and its shadow, and only darkens within the shadow', () => {
    const source = template();
    const { data } = scene('lock');
    let changed = 0;
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++)
        for (let c = 0; c < 3; c++) {
          const i = (y * W + x) * 3 + c;
          if (data[i] === source[i]) continue;
          changed += 1;
          expect(data[i]).toBeLessThan(source[i]);
          // Within the object's box grown by 60 % of its height (180 px): the reach of its shadow.
          expect(x > 22 && x < 298 && y > 150, `${x},${y}`).toBe(true);
        }
    expect(changed).toBeGreaterThan(300);
  });

  it('transform moves the mean hue to the colour and keeps the luminance structure', () => {
    const source = template();
    const blue = { r: 40, g: 90, b: 210 };
    const { data } = scene('transform', {
      background: { kind: 'template', template: source, mode: 'transform', view: 'top', colour: blue },
    });
    const [r, , b] = meanColour(data);
    const [r0, , b0] = meanColour(source);
    expect(b - r).toBeGreaterThan(b0 - r0 + 40);
    // Its structure (the stripes, the gradient's steps) kept: the same luminance steps pixel to pixel, away from
    // the object and its shadow (the rows above 90).
    expect(correlation(steps(luma(source), 90), steps(luma(data), 90))).toBeGreaterThan(0.9);
  });

  it('transform takes the prompt colour when no colour is given', () => {
    const { data } = scene('transform', { prompt: 'red' });
    const [r, , b] = meanColour(data);
    expect(r - b).toBeGreaterThan(30);
  });

  it('adjust: the template moved a little, the object tone modest and towards the template', () => {
    const source = template();
    const { data, objectTone } = scene('adjust');
    expect(objectTone).toBeDefined();
    const tone = objectTone!;
    for (const g of tone.gain) expect(Math.abs(g - 1)).toBeLessThanOrEqual(0.1 + 1e-9);
    for (const o of tone.offset) expect(Math.abs(o)).toBeLessThan(40);
    // Far from the object the template moved at most 10 % of the way to the object's mean colour (red 200,40,40).
    const [tr, tg, tb] = meanColour(source);
    for (const [x, y] of [
      [10, 10],
      [300, 40],
      [20, 300],
    ]) {
      const i = (y * W + x) * 3;
      expect(Math.abs(data[i] - source[i])).toBeLessThanOrEqual(Math.abs(200 - tr) * 0.1 + 1);
      expect(Math.abs(data[i + 1] - source[i + 1])).toBeLessThanOrEqual(Math.abs(40 - tg) * 0.1 + 1);
      expect(Math.abs(data[i + 2] - source[i + 2])).toBeLessThanOrEqual(Math.abs(40 - tb) * 0.1 + 1);
    }
    // The object's luminance moves about 30 % of the way to the template's.
    const objectLuma = 0.2126 * 200 + 0.7152 * 40 + 0.0722 * 40;
    const toned = [200, 40, 40].map((v, c) => v * tone.gain[c] + tone.offset[c]);
    const tonedLuma = 0.2126 * toned[0] + 0.7152 * toned[1] + 0.0722 * toned[2];
    const templateLuma = 0.2126 * tr + 0.7152 * tg + 0.0722 * tb;
    const moved = (tonedLuma - objectLuma) / (templateLuma - objectLuma);
    expect(moved).toBeGreaterThan(0.2);
    expect(moved).toBeLessThan(0.4);
  });
});

function meanDifference(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}

function meanColour(data: Uint8Array): [number, number, number] {
  const sum = [0, 0, 0];
  for (let i = 0; i < data.length; i++) sum[i % 3] += data[i];
  return sum.map((v) => v / (data.length / 3)) as [number, number, number];
}

function luma(data: Uint8Array): Float64Array {
  const out = new Float64Array(data.length / 3);
  for (let i = 0; i < out.length; i++)
    out[i] = 0.2126 * data[i * 3] + 0.7152 * data[i * 3 + 1] + 0.0722 * data[i * 3 + 2];
  return out;
}

/** Luminance differences between horizontal neighbours in the first `rows` rows. */
function steps(values: Float64Array, rows: number): Float64Array {
  const out = new Float64Array(rows * (W - 1));
  for (let y = 0; y < rows; y++)
    for (let x = 0; x < W - 1; x++) out[y * (W - 1) + x] = values[y * W + x + 1] - values[y * W + x];
  return out;
}

function correlation(a: Float64Array, b: Float64Array): number {
  const mean = (v: Float64Array) => v.reduce((s, x) => s + x, 0) / v.length;
  const ma = mean(a);
  const mb = mean(b);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += (a[i] - ma) * (b[i] - mb);
    aa += (a[i] - ma) ** 2;
    bb += (b[i] - mb) ** 2;
  }
  return ab / Math.sqrt(aa * bb);
}

/** Standard deviation of the green channel along a canvas row, away from the object (a texture's visibility). */
function rowSpread(data: Uint8Array, y: number): number {
  const values: number[] = [];
  for (let x = 0; x < 100; x++) values.push(at(data, 3, x, y, 1));
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  return Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length);
}
