import type { SuperResolutionMode } from '@app/image-pipeline';
import { shippedFilePath, type ModelFile } from '../model-file';

/**
 * The super-resolution models that ship with the service: ESRGAN-family RDN networks (residual dense blocks),
 * trained by UpscalerJS on DIV2K and published as TF.js layers models in the npm packages
 * `@upscalerjs/esrgan-slim@1.0.0` and `@upscalerjs/esrgan-medium@1.0.0` (MIT, pinned in package.json). Each scale
 * is its own network: `models/x<scale>/model.json` and one weights shard. The x8 networks are not used (an 8x
 * enlargement is the 4x network and Lanczos). docs/models.md, "Super-resolution (ESRGAN)".
 */
export type EsrganSize = 'slim' | 'medium';
export const ESRGAN_SCALES = [2, 3, 4] as const;
export type EsrganScale = (typeof ESRGAN_SCALES)[number];

/** SHA-256 of each shipped file: `[model.json, group1-shard1of1.bin]`. */
export const SHIPPED_ESRGAN: Readonly<Record<EsrganSize, Record<EsrganScale, readonly [string, string]>>> = {
  slim: {
    2: [
      '8efb488c2caed0196a6163e3f06798f9245e92623ffd50654a26c372e09150ea',
      '5cb464ae4d390ce0a771afd5feaf60fbfcdb18ab48a56db98cdf6b88202369de',
    ],
    3: [
      '642208758cf6c42a4f88745894b45cc03776681a46027b85963f01fe003e9917',
      '9d344609abd1e29bd3924f9c4e9ffaa1aee6be7c3586bab0f52863597858a2ba',
    ],
    4: [
      '3a2eaa642232567e7d2a2e7638c9704f42f63f355fc656c18aa78bf2da1d903d',
      '82637daaf3ba024df5e9da2389e8992e7a6e8a992ba6268ce6bc490c92e9516e',
    ],
  },
  medium: {
    2: [
      '197b99be1f385b9f7914ecd8fd6e9ebf65833859807aae90666188dbc39cbf93',
      '6a210f30f209192bad4650ea4f619adadbd36228e998aa49a4195c6e7ec70761',
    ],
    3: [
      'fcf99e8e6b98b19e496d4ceb9d381b0d1236a6e62fbc3952eedf70b9596d8a8a',
      'e164821f4251957f5037fb93d1e9a719c17d4346e102bf24d8e8fb60757df48b',
    ],
    4: [
      '6abcf2a497bb361a9b75afbab390a2bc0df88236c7b7c96edc1c2cdbdbec8e3c',
      'ed791214e78e498dd42ce5da0e16b78a1047732e5d99467aaead2a90cb566a69',
    ],
  },
};

/**
 * Input pixels on each side of a tile that the network reads but whose output is not kept: at least its
 * receptive radius (the 3x3 and 5x5 convolutions along the longest path: 9.5 px slim, 17.5 px medium), so every
 * kept pixel saw the same neighbourhood as in a run on the whole image and no seam can show.
 */
export const ESRGAN_MARGIN: Readonly<Record<EsrganSize, number>> = { slim: 12, medium: 20 };

/**
 * The network each mode prefers, chosen by measurement (docs/benchmarks.md, "Super-resolution"): medium gains
 * 0.06-0.6 dB PSNR over slim at 2x for 3-5x the time. Medium for small low-quality product images, drawings and
 * faces; slim for phone and camera photos, high-quality images with small text, and polish (up to 16 MP). Above
 * SUPER_RESOLUTION_MEDIUM_MAX_PIXELS of input every mode runs slim (EsrganSuperResolver.sizeFor).
 */
export const MODE_MODEL: Readonly<Record<SuperResolutionMode, EsrganSize>> = {
  photo: 'slim',
  smart_resize: 'slim',
  polish: 'slim',
  smart_enhance: 'medium',
  digital_art: 'medium',
  faces: 'medium',
  // the faces of a `faces` upscale whose whole image ran slim (above the medium limit): the faces are small
  face: 'medium',
};

/** The network's scale for an enlargement by `factor`: the smallest that reaches it, else the largest. */
export function esrganScale(factor: number): EsrganScale {
  return ESRGAN_SCALES.find((scale) => scale >= factor) ?? ESRGAN_SCALES[ESRGAN_SCALES.length - 1];
}

/**
 * A network as the worker loads it: its graph and its one weights shard (each with its SHA-256: the worker
 * loads the bytes it hashed), scale and margin.
 */
export interface EsrganNetwork {
  graph: ModelFile;
  weights: ModelFile;
  scale: EsrganScale;
  margin: number;
}

export type EsrganName = `${EsrganSize}-x${EsrganScale}`;

export function esrganName(size: EsrganSize, scale: EsrganScale): EsrganName {
  return `${size}-x${scale}`;
}

/** Where the shipped files are (in the installed packages), with their checksums. */
export function shippedNetworks(): { networks: Record<EsrganName, EsrganNetwork>; files: ModelFile[] } {
  const networks = {} as Record<EsrganName, EsrganNetwork>;
  const files: ModelFile[] = [];
  for (const size of ['slim', 'medium'] as const) {
    const name = `@upscalerjs/esrgan-${size}`;
    for (const scale of ESRGAN_SCALES) {
      const [graphSha, weightsSha] = SHIPPED_ESRGAN[size][scale];
      const graph = { path: shippedFilePath(name, `models/x${scale}/model.json`), sha256: graphSha };
      const weights = { path: shippedFilePath(name, `models/x${scale}/group1-shard1of1.bin`), sha256: weightsSha };
      networks[esrganName(size, scale)] = { graph, weights, scale, margin: ESRGAN_MARGIN[size] };
      files.push(graph, weights);
    }
  }
  return { networks, files };
}
