import type { PortColour } from '@app/image-pipeline';
import type { Surface } from '../prompt-vocabulary';
import type { ValueNoise } from './seeded-noise';

/**
 * The surfaces of the vocabulary, drawn from seeded noise. `sample(u, v, px, py, out)` reads a point of the
 * surface at (u, v), in canvas widths (so a pattern has the same size relative to any canvas), px/py being the
 * canvas pixel (for per-pixel grain), and writes out[0] = a brightness change (about -0.2..0.2, multiplied in) and
 * out[1] = how much of the accent colour shows there (0..1: marble veins, terrazzo chips, dark wood rings).
 */
export interface SurfaceTexture {
  sample(u: number, v: number, px: number, py: number, out: Float64Array): void;
}

/** Default colours of a surface when neither `colour` nor the prompt names one: its floor, wall and accent. */
export const SURFACE_COLOURS: Readonly<Record<Surface, { floor: PortColour; wall: PortColour; accent: PortColour }>> = {
  plain: { floor: grey(236), wall: grey(240), accent: grey(200) },
  marble: { floor: rgb(236, 234, 230), wall: rgb(228, 226, 222), accent: rgb(140, 140, 146) },
  wood: { floor: rgb(178, 134, 94), wall: rgb(232, 228, 220), accent: rgb(112, 74, 46) },
  concrete: { floor: rgb(172, 170, 164), wall: rgb(196, 194, 188), accent: rgb(120, 118, 114) },
  stone: { floor: rgb(134, 132, 126), wall: rgb(206, 204, 198), accent: rgb(92, 90, 88) },
  paper: { floor: rgb(240, 236, 226), wall: rgb(242, 238, 230), accent: rgb(210, 204, 192) },
  linen: { floor: rgb(222, 214, 198), wall: rgb(232, 226, 214), accent: rgb(190, 180, 160) },
  sand: { floor: rgb(214, 194, 160), wall: rgb(236, 226, 208), accent: rgb(180, 158, 122) },
  terrazzo: { floor: rgb(228, 224, 216), wall: rgb(236, 234, 228), accent: rgb(196, 118, 96) },
};

function rgb(r: number, g: number, b: number): PortColour {
  return { r, g, b };
}
function grey(value: number): PortColour {
  return rgb(value, value, value);
}

/** Backdrop materials (a paper or fabric sweep, a rendered wall) also show, faintly, on the wall. */
export const WALL_TEXTURED: ReadonlySet<Surface> = new Set(['paper', 'linen', 'concrete']);

const TAU = Math.PI * 2;

/** 0 below `from`, 1 above `to`, a smoothstep between. */
function smooth(from: number, to: number, value: number): number {
  const t = Math.min(1, Math.max(0, (value - from) / (to - from)));
  return t * t * (3 - 2 * t);
}

/** A line of `width` (in the ramp's units) where `ramp` crosses a whole number: 1 on it, fading off. */
function veinLine(ramp: number, width: number): number {
  const off = Math.abs(ramp - Math.round(ramp)) / width;
  return Math.exp(-off * off);
}

/** A slow 0..1 variation of a vein's width along it. */
function wave(noise: ValueNoise, u: number, v: number, scale: number): number {
  return 0.5 + 0.5 * noise.at(u * scale + 71, v * scale);
}

export function surfaceTexture(surface: Surface, noise: ValueNoise, octaves: number): SurfaceTexture {
  const grain = (px: number, py: number) => noise.grain(px, py);
  switch (surface) {
    case 'marble':
      return {
        sample(u, v, px, py, out) {
          // Veins (Perlin's marble): lines where a diagonal ramp, pushed about by turbulence, crosses a whole
          // number: roughly parallel, kinked, unevenly spaced; each fades in and out along its length and varies in
          // width, with a soft grey wash around it. Finer veins cross them at another angle, fainter.
          // (The slow variations take two octaves; the fine veins are computed only where they show.)
          const drift = noise.fbm(u * 0.7 + 3, v * 0.7, 2) * 0.8;
          const ramp = (u * 0.9 + v * 1.5) * 1.15 + noise.turbulence(u * 1.7, v * 1.7, octaves) * 0.9 + drift;
          const main = veinLine(ramp, 0.008 + 0.014 * wave(noise, u, v, 3.1));
          const wash = veinLine(ramp, 0.07 + 0.05 * wave(noise, u, v, 1.7));
          const presence = 0.4 + 0.6 * smooth(-0.45, 0.35, noise.fbm(u * 0.9 + 31, v * 0.9, 2));
          const finePresence = smooth(0.05, 0.6, noise.fbm(u * 1.6 + 7, v * 1.6, 2));
          let fine = 0;
          if (finePresence > 0) {
            const fineTurbulence = noise.turbulence(u * 3.2 + 11, v * 3.2, Math.min(octaves, 4));
            fine = veinLine((u * 1.8 - v * 0.7) * 2.6 + fineTurbulence * 1.2, 0.005 + 0.006 * wave(noise, u, v, 5.3));
          }
          const cloud = noise.fbm(u * 2.4, v * 2.4, Math.min(octaves, 4));
          out[0] = cloud * 0.015 + grain(px, py) * 0.004;
          out[1] = Math.min(
            1,
            (main * 0.62 + wash * 0.2) * presence + fine * 0.3 * finePresence + Math.max(0, cloud) * 0.1,
          );
        },
      };
    case 'wood':
      return {
        sample(u, v, px, py, out) {
          // Flat-sawn planks along the depth. Each board cuts the log's growth rings at a distance from its heart
          // that drifts along it, so the rings show as arches (cathedrals) and long wavy lines; a ring is light
          // earlywood then dark latewood. Fine streaks run along the board, pores dot it; a seam between boards.
          const across = u * 6;
          const plank = Math.floor(across);
          const within = across - plank - 0.5;
          const heart = 0.35 + 0.3 * noise.at(plank * 7.3, v * 0.6) + v * 0.18 * (noise.grain(plank, 3) + 0.2);
          const radius = Math.sqrt(within * within + heart * heart) + noise.fbm(u * 2, v * 0.5 + plank, octaves) * 0.04;
          const ring = (radius * 15 + noise.grain(plank, 5)) % 1;
          const latewood = smooth(0.5, 0.78, ring) * (1 - smooth(0.8, 1, ring));
          const streak = noise.at(u * 260, v * 5 + plank * 13);
          const seam = Math.abs(within) > 0.49 ? 0.18 : 0;
          const pore = grain(px, py) > 0.93 ? 0.05 : 0;
          out[0] = noise.grain(plank, 11) * 0.06 - latewood * 0.05 + streak * 0.04 - seam - pore;
          out[1] = latewood * 0.4 + Math.max(0, streak) * 0.15;
        },
      };
    case 'concrete':
      return {
        sample(u, v, px, py, out) {
          out[0] = noise.fbm(u * 5, v * 5, octaves) * 0.08 + noise.at(u * 60, v * 60) * 0.025 + grain(px, py) * 0.03;
          out[1] = Math.max(0, noise.at(u * 40 + 91, v * 40) - 0.75) * 1.5;
        },
      };
    case 'stone':
      return {
        sample(u, v, px, py, out) {
          const coarse = noise.fbm(u * 3, v * 3, octaves);
          const ridge = 1 - Math.abs(noise.fbm(u * 9 + 13, v * 9, Math.min(octaves, 4)));
          out[0] = coarse * 0.1 + ridge * 0.05 + grain(px, py) * 0.025;
          out[1] = ridge ** 10 * 0.6;
        },
      };
    case 'paper':
      return {
        sample(u, v, px, py, out) {
          out[0] = noise.fbm(u * 14, v * 14, Math.min(octaves, 3)) * 0.018 + grain(px, py) * 0.008;
          out[1] = 0;
        },
      };
    case 'linen':
      return {
        sample(u, v, px, py, out) {
          const weave = Math.sin(u * TAU * 170) * Math.sin(v * TAU * 170);
          const slub = noise.at(u * 6, v * 160) * 0.03 + noise.at(u * 160, v * 6) * 0.03;
          out[0] = weave * 0.035 + slub + grain(px, py) * 0.01;
          out[1] = 0;
        },
      };
    case 'sand':
      return {
        sample(u, v, px, py, out) {
          const ripple = Math.sin(TAU * (v * 10 + u * 2 + noise.fbm(u * 2, v * 2, octaves) * 1.4));
          out[0] = ripple * 0.04 + grain(px, py) * 0.06;
          out[1] = Math.max(0, grain(px + 101, py + 57) - 0.85) * 4;
        },
      };
    case 'terrazzo':
      return {
        sample(u, v, px, py, out) {
          // Chips of stone set in a pale binder: in each cell of a grid (48 per canvas width) perhaps one chip, at a
          // random place and size, its outline an irregular mix of a square and a circle; a chip is the accent
          // colour, a dark grey, or a white one.
          const chip = terrazzoChip(noise, u * 48, v * 48);
          out[0] = noise.fbm(u * 4, v * 4, Math.min(octaves, 3)) * 0.02 + grain(px, py) * 0.01;
          out[1] = 0;
          if (chip === 1) out[1] = 0.9;
          else if (chip === 2) out[0] -= 0.28;
          else if (chip === 3) out[0] += 0.04;
        },
      };
    case 'plain':
      return {
        sample(_u, _v, px, py, out) {
          // A trace of grain, so that the smooth falloff does not band in 8 bits.
          out[0] = grain(px, py) * 0.004;
          out[1] = 0;
        },
      };
  }
}

/** Which chip covers the point (x, y) in chip cells: 0 none, 1 accent, 2 dark, 3 white. */
function terrazzoChip(noise: ValueNoise, x: number, y: number): number {
  const cx = Math.floor(x);
  const cy = Math.floor(y);
  for (let dy = -1; dy <= 1; dy++)
    for (let dx = -1; dx <= 1; dx++) {
      const gx = cx + dx;
      const gy = cy + dy;
      const kind = noise.grain(gx * 3 + 1, gy * 5 + 2);
      if (kind < -0.2) continue;
      const centreX = gx + 0.5 + noise.grain(gx + 17, gy) * 0.35;
      const centreY = gy + 0.5 + noise.grain(gx, gy + 29) * 0.35;
      const radius = 0.22 + 0.2 * (noise.grain(gx + 7, gy + 13) + 1) * 0.5;
      const ox = x - centreX;
      const oy = y - centreY;
      const square = Math.max(Math.abs(ox + oy * 0.4), Math.abs(oy - ox * 0.3));
      const round = Math.sqrt(ox * ox + oy * oy);
      const blend = (noise.grain(gx + 5, gy + 3) + 1) * 0.5;
      if (square * blend + round * (1 - blend) < radius) return kind < 0.35 ? 1 : kind < 0.7 ? 2 : 3;
    }
  return 0;
}
