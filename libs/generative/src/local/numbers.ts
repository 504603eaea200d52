/** `value` kept within `low..high`: the local backend's pixel code (fill, first guess, style) shares this one. */
export function clamp(value: number, low: number, high: number): number {
  return value < low ? low : value > high ? high : value;
}
