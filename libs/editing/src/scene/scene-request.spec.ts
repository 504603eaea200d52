import { describe, expect, it } from 'vitest';
import { ServiceException } from '@app/common';
import { parseSceneRequest } from './scene-request';

const URL = 'https://example.com/bottle.png';

function problems(body: unknown): Record<string, string[]> {
  try {
    parseSceneRequest(body);
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceException);
    return (error as ServiceException).details as Record<string, string[]>;
  }
  throw new Error('expected a 422');
}

describe('parseSceneRequest', () => {
  it('fills the contract defaults: absolute placement at the centre, four 1 MP PNGs, model v1, 1:1', () => {
    const request = parseSceneRequest({ object: { image_url: URL }, scene: { prompt: 'white marble' } });
    expect(request.object.placement).toEqual({ type: 'absolute', rotation: 0, scale: 1, position: { x: 0.5, y: 0.5 } });
    expect(request.scene).toMatchObject({
      kind: 'prompt',
      prompt: { text: 'white marble', generate: false },
      model: 'v1',
      aspectRatio: '1:1',
      preference: 'optimal',
    });
    expect(request.output).toMatchObject({ numberOfImages: 4, resolution: '1MP', format: { type: 'png' } });
  });

  it('chooses the scene variant: effect, then template_url, then prompt; members of another variant are 422', () => {
    expect(parseSceneRequest({ object: { image_url: URL }, scene: { effect: 'shadows' } }).scene).toMatchObject({
      kind: 'effect',
      view: 'auto',
      colour: { kind: 'rgb', r: 255, g: 255, b: 255 },
    });
    expect(
      parseSceneRequest({ object: { image_url: URL }, scene: { template_url: URL, view: 'top' } }).scene,
    ).toMatchObject({ kind: 'template', mode: 'transform', view: 'top' });
    expect(problems({ object: { image_url: URL }, scene: { effect: 'shadows', prompt: 'wood floor' } })).toEqual({
      'scene.prompt': ['prompt is not a member of the background effect scene (effect); no other members are allowed'],
    });
    expect(
      problems({ object: { image_url: URL }, scene: { template_url: URL, view: 'top', preference: 'fast' } }),
    ).toEqual({
      'scene.preference': [
        'preference is not a member of the template scene (template_url); no other members are allowed',
      ],
    });
    expect(Object.keys(problems({ object: { image_url: URL }, scene: { color: '#fff' } }))).toEqual(['scene.prompt']);
  });

  it('chooses the object variant by placement_type; members of another placement are 422', () => {
    expect(
      parseSceneRequest({ object: { image_url: URL, placement_type: 'original' }, scene: { effect: 'shadows' } }).object
        .placement,
    ).toEqual({ type: 'original' });
    expect(
      parseSceneRequest({
        object: { image_url: URL, placement_type: 'padding', padding: '10% 5%' },
        scene: { effect: 'shadows' },
      }).object.placement,
    ).toEqual({ type: 'padding', padding: { unit: 'percent', top: 5, right: 10, bottom: 5, left: 10 } });
    expect(
      problems({ object: { image_url: URL, placement_type: 'original', scale: 0.5 }, scene: { effect: 'shadows' } }),
    ).toEqual({
      'object.scale': ['scale is not a member of the original placement; no other members are allowed'],
    });
    expect(
      Object.keys(problems({ object: { image_url: URL, placement_type: 'padding' }, scene: { effect: 'shadows' } })),
    ).toEqual(['object.padding']);
  });

  it('checks every range and reports every problem of the body in one 422', () => {
    const details = problems({
      object: { image_url: 'ftp://x', scale: 1.5, rotation_degree: 361, position: { x: 2, y: -1 } },
      scene: { prompt: 'ab', steps: 50, aspect_ratio: '2:1', negative_prompt: 'x' },
      output: { number_of_images: 5, resolution: '3MP', format: 'gif' },
    });
    expect(Object.keys(details).sort()).toEqual(
      [
        'object.image_url',
        'object.rotation_degree',
        'object.scale',
        'object.position.x',
        'object.position.y',
        'scene.prompt',
        'scene.steps',
        'scene.aspect_ratio',
        'scene.negative_prompt',
        'output.number_of_images',
        'output.resolution',
        'output.format',
      ].sort(),
    );
  });

  it('accepts scale 0 as the smallest size and the extra aspect ratios', () => {
    const request = parseSceneRequest({
      object: { image_url: URL, scale: 0 },
      scene: { prompt: 'oak', aspect_ratio: '19:13' },
    });
    expect(request.object.placement).toMatchObject({ scale: 0.01 });
    expect(request.scene.aspectRatio).toBe('19:13');
  });

  it('applies the advanced prompt rules', () => {
    const scene = (prompt: unknown) => ({ object: { image_url: URL }, scene: { prompt } });
    expect(parseSceneRequest(scene({ generate: true, guidelines: 'keep it calm' })).scene).toMatchObject({
      prompt: { generate: true, guidelines: 'keep it calm' },
    });
    expect(problems(scene({ generate: true, text: 'oak table' }))).toEqual({
      'scene.prompt.text': ['text is not allowed when generate is true'],
    });
    expect(problems(scene({ text: 'oak table', guidelines: 'calm' }))).toEqual({
      'scene.prompt.guidelines': ['guidelines are allowed only when generate is true'],
    });
    expect(Object.keys(problems(scene({ generate: false })))).toEqual(['scene.prompt.text']);
  });

  it('allows 2MP only with model v2 and no effect, transparency only with formats that keep it', () => {
    expect(problems({ object: { image_url: URL }, scene: { prompt: 'oak' }, output: { resolution: '2MP' } })).toEqual({
      'output.resolution': ['2MP needs scene.model "v2" (the scene\'s model is "v1")'],
    });
    expect(
      Object.keys(
        problems({
          object: { image_url: URL },
          scene: { effect: 'shadows', model: 'v2' },
          output: { resolution: '2MP' },
        }),
      ),
    ).toEqual(['output.resolution']);
    expect(
      parseSceneRequest({
        object: { image_url: URL },
        scene: { prompt: 'oak', model: 'v2' },
        output: { resolution: '2MP' },
      }).output.resolution,
    ).toBe('2MP');
    expect(
      Object.keys(
        problems({
          object: { image_url: URL },
          scene: { effect: 'shadows', color: 'transparent' },
          output: { format: 'jpeg' },
        }),
      ),
    ).toEqual(['scene.color']);
    expect(
      parseSceneRequest({ object: { image_url: URL }, scene: { effect: 'shadows', color: 'transparent' } }).scene,
    ).toMatchObject({
      colour: { kind: 'transparent' },
    });
  });

  it('keeps transparency for the background effect', () => {
    expect(problems({ object: { image_url: URL }, scene: { prompt: 'oak table', color: 'transparent' } })).toEqual({
      'scene.color': [
        'color must be a hexadecimal colour; "transparent" is only for the background effect (effect: shadows)',
      ],
    });
    expect(
      Object.keys(
        problems({ object: { image_url: URL }, scene: { template_url: URL, view: 'top', color: 'transparent' } }),
      ),
    ).toEqual(['scene.color']);
  });

  it('asks for a folder when several images go to one destination', () => {
    expect(
      Object.keys(problems({ object: { image_url: URL }, scene: { prompt: 'oak' }, output: 'storage://s/scene.png' })),
    ).toEqual(['output']);
    expect(
      parseSceneRequest({
        object: { image_url: URL },
        scene: { prompt: 'oak' },
        output: { destination: 'storage://s/one.png', number_of_images: 1 },
      }).output,
    ).toMatchObject({ destination: 'storage://s/one.png', numberOfImages: 1 });
  });
});
