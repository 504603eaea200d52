import type { PortColour } from '@app/image-pipeline';

/**
 * The words of a prompt that the local backend understands, and nothing else: colours, the surface the object
 * stands on, its finish, and the light. It has no language model; every other word is ignored, and `ignored` says which, so
 * that the documentation (docs/scenes.md) and profiling can say plainly what was not understood.
 */

export const SURFACES = ['plain', 'marble', 'wood', 'concrete', 'stone', 'paper', 'linen', 'sand', 'terrazzo'] as const;
export type Surface = (typeof SURFACES)[number];

export const LIGHTS = ['warm', 'cool', 'soft', 'hard', 'bright', 'dark'] as const;
export type Light = (typeof LIGHTS)[number];

/** Colour words and their sRGB values (studio-backdrop tones rather than pure primaries). */
export const COLOUR_WORDS: Readonly<Record<string, PortColour>> = {
  white: { r: 244, g: 244, b: 242 },
  ivory: { r: 242, g: 236, b: 222 },
  cream: { r: 240, g: 230, b: 208 },
  beige: { r: 222, g: 206, b: 180 },
  sand: { r: 214, g: 194, b: 160 },
  tan: { r: 196, g: 164, b: 126 },
  brown: { r: 120, g: 86, b: 60 },
  black: { r: 28, g: 28, b: 30 },
  grey: { r: 150, g: 150, b: 152 },
  gray: { r: 150, g: 150, b: 152 },
  silver: { r: 196, g: 198, b: 202 },
  gold: { r: 200, g: 164, b: 86 },
  red: { r: 190, g: 52, b: 48 },
  burgundy: { r: 112, g: 30, b: 42 },
  orange: { r: 232, g: 126, b: 52 },
  peach: { r: 246, g: 196, b: 164 },
  yellow: { r: 236, g: 204, b: 80 },
  green: { r: 84, g: 150, b: 92 },
  olive: { r: 128, g: 128, b: 72 },
  mint: { r: 176, g: 226, b: 200 },
  sage: { r: 170, g: 186, b: 156 },
  teal: { r: 48, g: 128, b: 128 },
  turquoise: { r: 64, g: 190, b: 186 },
  blue: { r: 64, g: 112, b: 188 },
  navy: { r: 30, g: 44, b: 88 },
  sky: { r: 150, g: 196, b: 234 },
  purple: { r: 120, g: 76, b: 160 },
  lavender: { r: 196, g: 180, b: 226 },
  violet: { r: 138, g: 92, b: 196 },
  pink: { r: 236, g: 168, b: 186 },
  rose: { r: 218, g: 130, b: 150 },
};

/** Words that lighten (`light`, `pastel`) or darken (`dark`, `deep`) the colour word after them. */
const LIGHTER = new Set(['light', 'pale', 'pastel', 'soft']);
const DARKER = new Set(['dark', 'deep']);

/** Surface words (and their plurals and adjectives) to the surface they name. */
const SURFACE_WORDS: Readonly<Record<string, Surface>> = {
  plain: 'plain',
  seamless: 'plain',
  studio: 'plain',
  marble: 'marble',
  wood: 'wood',
  wooden: 'wood',
  oak: 'wood',
  walnut: 'wood',
  table: 'wood',
  concrete: 'concrete',
  cement: 'concrete',
  stone: 'stone',
  slate: 'stone',
  granite: 'stone',
  paper: 'paper',
  linen: 'linen',
  fabric: 'linen',
  cloth: 'linen',
  sand: 'sand',
  beach: 'sand',
  terrazzo: 'terrazzo',
};

/** Light words to the light they name. */
const LIGHT_WORDS: Readonly<Record<string, Light>> = {
  warm: 'warm',
  golden: 'warm',
  sunset: 'warm',
  cool: 'cool',
  cold: 'cool',
  soft: 'soft',
  diffuse: 'soft',
  hard: 'hard',
  dramatic: 'hard',
  contrasty: 'hard',
  bright: 'bright',
  airy: 'bright',
  dark: 'dark',
  moody: 'dark',
  low: 'dark',
};

export const FINISHES = ['glossy', 'matte'] as const;
export type Finish = (typeof FINISHES)[number];

/** Finish words: a glossy surface mirrors the object (a faded reflection below it), a matte one does not. */
const FINISH_WORDS: Readonly<Record<string, Finish>> = {
  glossy: 'glossy',
  gloss: 'glossy',
  reflective: 'glossy',
  reflection: 'glossy',
  polished: 'glossy',
  shiny: 'glossy',
  mirror: 'glossy',
  lacquered: 'glossy',
  matte: 'matte',
  matt: 'matte',
};

/** Words that carry no meaning here and are not worth reporting as ignored. */
const FILLER = new Set([
  'a',
  'an',
  'the',
  'on',
  'in',
  'of',
  'with',
  'and',
  'at',
  'for',
  'by',
  'to',
  'background',
  'backdrop',
  'scene',
  'surface',
  'light',
  'lighting',
  'photo',
  'product',
  'shot',
]);

export interface PromptReading {
  /** The colours named, in the order named (a modifier such as `dark` applied). */
  colours: PortColour[];
  /** The surface named first; absent: a plain studio sweep. */
  surface?: Surface;
  lights: Light[];
  /** The finish named first; absent: the surface's own (marble is glossy, the others matte). */
  finish?: Finish;
  /** Words understood, as they were written. */
  understood: string[];
  /** Words not understood (no filler words), as they were written. */
  ignored: string[];
}

function shade(colour: PortColour, towards: number, amount: number): PortColour {
  const mix = (value: number) => Math.round(value + (towards - value) * amount);
  return { r: mix(colour.r), g: mix(colour.g), b: mix(colour.b) };
}

/**
 * What the local backend reads from a prompt. A colour, surface or light named in `negative` is left out of the
 * reading even when the prompt names it.
 */
export function readPrompt(text: string | undefined, negative?: string): PromptReading {
  const excluded = new Set(words(negative ?? ''));
  const reading: PromptReading = { colours: [], lights: [], understood: [], ignored: [] };
  const list = words(text ?? '');
  for (let index = 0; index < list.length; index += 1) {
    const word = list[index];
    const next = list[index + 1];
    if ((LIGHTER.has(word) || DARKER.has(word)) && next !== undefined && COLOUR_WORDS[next] && !excluded.has(next)) {
      reading.colours.push(shade(COLOUR_WORDS[next], LIGHTER.has(word) ? 255 : 0, 0.45));
      reading.understood.push(`${word} ${next}`);
      index += 1;
      continue;
    }
    if (excluded.has(word)) continue;
    if (COLOUR_WORDS[word] && next !== undefined && COLOUR_WORDS[next] && !SURFACE_WORDS[next] && !excluded.has(next)) {
      // Two colour words in a row name one colour ("sage green", "navy blue"): their mean.
      reading.colours.push(mean(COLOUR_WORDS[word], COLOUR_WORDS[next]));
      reading.understood.push(`${word} ${next}`);
      index += 1;
      continue;
    }
    const colour = COLOUR_WORDS[word];
    const surface = SURFACE_WORDS[word] ?? SURFACE_WORDS[word.replace(/s$/, '')];
    const light = LIGHT_WORDS[word];
    const finish = FINISH_WORDS[word];
    if (colour) reading.colours.push(colour);
    if (finish && reading.finish === undefined) reading.finish = finish;
    if (surface && reading.surface === undefined) reading.surface = surface;
    if (light && !reading.lights.includes(light)) reading.lights.push(light);
    if (colour || surface || light || finish) reading.understood.push(word);
    else if (!FILLER.has(word) && !/^\d+$/.test(word)) reading.ignored.push(word);
  }
  return reading;
}

function mean(a: PortColour, b: PortColour): PortColour {
  return { r: Math.round((a.r + b.r) / 2), g: Math.round((a.g + b.g) / 2), b: Math.round((a.b + b.b) / 2) };
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}
