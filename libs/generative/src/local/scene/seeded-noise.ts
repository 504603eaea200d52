/**
 * 2-D value noise for the local scene renderer on a wrapped 256 x 256 lattice, from the backend's seeded generator,
 * so that a scene is the same bytes for the same (input, seed, variant) on every machine.
 */
import { seededRandom } from '../seeded-random';

const SIZE = 256;
const MASK = SIZE - 1;

/** Value noise: lattice values in [-1, 1], smoothstep-interpolated; one unit = one lattice cell. */
export class ValueNoise {
  private readonly lattice = new Float32Array(SIZE * SIZE);

  constructor(seed: number) {
    const random = seededRandom(seed);
    for (let i = 0; i < this.lattice.length; i++) this.lattice[i] = random() * 2 - 1;
  }

  at(x: number, y: number): number {
    const xf = Math.floor(x);
    const yf = Math.floor(y);
    let fx = x - xf;
    let fy = y - yf;
    fx = fx * fx * (3 - 2 * fx);
    fy = fy * fy * (3 - 2 * fy);
    const x0 = xf & MASK;
    const x1 = (xf + 1) & MASK;
    const r0 = (yf & MASK) * SIZE;
    const r1 = ((yf + 1) & MASK) * SIZE;
    const l = this.lattice;
    const top = l[r0 + x0] + (l[r0 + x1] - l[r0 + x0]) * fx;
    const bottom = l[r1 + x0] + (l[r1 + x1] - l[r1 + x0]) * fx;
    return top + (bottom - top) * fy;
  }

  /** Fractal sum of `octaves` octaves (each twice the frequency, half the amplitude), about -1..1. */
  fbm(x: number, y: number, octaves: number): number {
    let sum = 0;
    let amplitude = 0.5;
    let frequency = 1;
    for (let o = 0; o < octaves; o++) {
      // An offset per octave so that the lattices of the octaves do not line up.
      sum += amplitude * this.at(x * frequency + o * 37.1, y * frequency + o * 19.7);
      amplitude *= 0.5;
      frequency *= 2;
    }
    return sum * 1.6;
  }

  /**
   * Turbulence (Perlin): the sum of `octaves` octaves of |noise|, each twice the frequency and half the amplitude,
   * about 0..1: creased where the noise crosses zero, the kinks of marble veins and of wood's figure.
   */
  turbulence(x: number, y: number, octaves: number): number {
    let sum = 0;
    let amplitude = 0.5;
    let frequency = 1;
    for (let o = 0; o < octaves; o++) {
      sum += amplitude * Math.abs(this.at(x * frequency + o * 23.3, y * frequency + o * 41.9));
      amplitude *= 0.5;
      frequency *= 2;
    }
    return sum * 1.6;
  }

  /** A per-point random value in [-1, 1] without interpolation (grain). */
  grain(ix: number, iy: number): number {
    return this.lattice[((iy & MASK) << 8) | (ix & MASK)];
  }
}
