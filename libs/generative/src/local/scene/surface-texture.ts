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

export function surfaceTexture(surface: Surface, noise: ValueNoise, octaves: number): SurfaceTexture {
  const grain = (px: number, py: number) => noise.grain(px, py);
  switch (surface) {
    case 'marble':
      return {
        sample(u, v, px, py, out) {
          // Veins: the zero lines of a diagonal wave, warped by low-frequency noise; wide soft ones and thin ones.
          const warp = noise.fbm(u * 1.4, v * 1.4, octaves);
          const wave = Math.abs(Math.sin((u * 2.2 + v * 1.3 + warp * 1.8) * Math.PI));
          const thin = Math.abs(Math.sin((u * 5.5 - v * 2.5 + warp * 2.6) * Math.PI));
          const soft = 1 - wave;
          out[0] = warp * 0.03 + grain(px, py) * 0.004;
          out[1] = Math.min(1, soft * soft * soft * soft * 0.32 + Math.max(0, 1 - thin * 18) * 0.5 * (0.6 + warp));
        },
      };
    case 'wood':
      return {
        sample(u, v, px, py, out) {
          // Planks along the depth, each with its own tone and grain phase, a dark seam between them.
          const across = u * 7;
          const plank = Math.floor(across);
          const within = across - plank;
          const seam = within < 0.015 || within > 0.985 ? 0.16 : 0;
          const ring = Math.sin(TAU * (u * 22 + plank * 0.37 + noise.fbm(u * 1.2, v * 0.35 + plank, octaves) * 2.2));
          out[0] = ring * 0.05 + noise.at(u * 90, v * 4) * 0.045 + noise.grain(plank, 11) * 0.07 - seam;
          out[1] = Math.max(0, ring) ** 6 * 0.4 + grain(px, py) * 0.01;
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
          const chip = noise.at(u * 55, v * 55);
          out[0] = noise.fbm(u * 4, v * 4, Math.min(octaves, 3)) * 0.02 + grain(px, py) * 0.01;
          out[1] = chip > 0.5 ? 0.9 : chip < -0.62 ? 0.55 : 0;
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
