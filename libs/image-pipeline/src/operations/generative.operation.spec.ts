import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { pngClaiming } from '../../../../test/helpers/fake-generators/fake-server';
import { rejected } from '../../../../test/helpers/rejected';
import { generatedAnswerPixels } from '../memory-estimate';
import { fitGenerated } from './generative.operation';

/** A generator's answer: an encoded image fitted to the job's size, decoded only within what admission counted. */
describe('fitGenerated', () => {
  const MAX_PIXELS = 50_000_000;

  it('refuses a header claiming 100000x100000 before decoding: 502 naming the size, no byte of the answer', async () => {
    const started = performance.now();
    const error = await rejected(fitGenerated({ encoded: pngClaiming(100_000, 100_000) }, 400, 300, 3, MAX_PIXELS));
    expect(error.status).toBe(502);
    expect(error.codeName).toBe('GENERATOR_FAILED');
    expect(error.message).toBe(
      'The image generator answered with an image that is too large (100000x100000; at most 4194304 pixels for a 400x300 job).',
    );
    expect(performance.now() - started).toBeLessThan(5_000); // a header read, not ten gigapixels
  });

  it('takes an answer up to four times the job (at least 2048x2048), never over MAX_INPUT_PIXELS', async () => {
    expect(generatedAnswerPixels(400 * 300, MAX_PIXELS)).toBe(2048 * 2048);
    expect(generatedAnswerPixels(3000 * 2000, MAX_PIXELS)).toBe(24_000_000);
    expect(generatedAnswerPixels(5000 * 4000, MAX_PIXELS)).toBe(MAX_PIXELS);
    const answer = await sharp({ create: { width: 2048, height: 2048, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    const fitted = await fitGenerated({ encoded: answer }, 400, 300, 3, MAX_PIXELS);
    expect([fitted.width, fitted.height, fitted.channels]).toEqual([400, 300, 3]);
    // the same answer over a MAX_INPUT_PIXELS of 1 MP
    const error = await rejected(fitGenerated({ encoded: answer }, 400, 300, 3, 1_000_000));
    expect(error.message).toContain('is too large (2048x2048; at most 1000000 pixels for a 400x300 job)');
  });

  it('refuses bytes that are no image with a 502, not a 500', async () => {
    const error = await rejected(fitGenerated({ encoded: Buffer.from('<html>oops</html>') }, 40, 30, 3, MAX_PIXELS));
    expect(error.status).toBe(502);
    expect(error.message).toBe('The image generator answered with an image that cannot be decoded.');
  });
});
