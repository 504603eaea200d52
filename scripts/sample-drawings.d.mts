/** Types of sample-drawings.mjs (plain JavaScript: the sample script runs without a build). */
export const mug: string;
export const bottle: string;
export const plant: string;
/** The plant's drawing without its wall, floor and shadow: the truth of its cut-out. */
export const plantAlone: string;
