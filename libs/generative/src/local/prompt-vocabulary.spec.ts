import { describe, expect, it } from 'vitest';
import { COLOUR_WORDS, readPrompt } from './prompt-vocabulary';

describe('readPrompt', () => {
  it('reads colours, surface, lights and finish, and names the words it ignored', () => {
    const reading = readPrompt('a perfume on glossy white marble, warm soft light, palm leaves');
    expect(reading).toMatchObject({
      colours: [COLOUR_WORDS.white],
      surface: 'marble',
      lights: ['warm', 'soft'],
      finish: 'glossy',
      ignored: ['perfume', 'palm', 'leaves'],
    });
  });

  it('two colour words in a row are one colour; a surface word after a colour stays a surface', () => {
    expect(readPrompt('sage green backdrop').colours).toEqual([{ r: 127, g: 168, b: 124 }]);
    const sand = readPrompt('white sand');
    expect(sand.colours[0]).toEqual(COLOUR_WORDS.white);
    expect(sand.surface).toBe('sand');
  });

  it('leaves out what the negative prompt names', () => {
    const reading = readPrompt('glossy red wood', 'red glossy');
    expect(reading.colours).toEqual([]);
    expect(reading.finish).toBeUndefined();
    expect(reading.surface).toBe('wood');
  });
});
