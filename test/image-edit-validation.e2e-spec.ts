import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quadrantsImage } from './fixtures/images';
import { editImage } from './helpers/edit-client';
import { call } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * The edit request's validation over HTTP: every invalid form the contract (docs/api-contract.md) names is a
 * 422 (`9000`, `validation`) whose error_details name exactly the fields at fault, and is answered without
 * downloading the input. Operations that validate but need a model are 501 (`1604`) naming the operation, but
 * only once the request is valid.
 */

let app: TestApp;
let images: ImageServer;
let photo: Buffer;

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({
    FETCH_ALLOW_HOSTS: '127.0.0.1',
    MAX_INPUT_PIXELS: '20000000',
    // a deployment without the segmentation and text models' files: the operations that need them answer 501
    // here; the face and super-resolution models ship with no setting to leave them out (their own specs)
    SEGMENTATION_MODEL: '/nonexistent/segmentation.onnx',
    SEGMENTATION_MODEL_SHA256: '0'.repeat(64),
    TEXT_DETECTION_MODEL: '/nonexistent/text-detection.onnx',
    TEXT_DETECTION_MODEL_SHA256: '0'.repeat(64),
    // and with generative work turned off: outpaint and style transfer answer 501 too
    GENERATIVE_BACKEND: 'none',
  });
  photo = await quadrantsImage({ format: 'jpeg', width: 400, height: 300 });
});

afterAll(async () => {
  await app?.close();
  await images?.stop();
});

function edit(body: unknown) {
  return editImage(app, body);
}

let served = 0;
/** A fresh input path with the photo behind it, so that hits on it belong to one request only. */
function freshInput(): { path: string; url: string } {
  const path = `/photo-${++served}.jpg`;
  images.put(path, photo);
  return { path, url: images.url(path) };
}

/** The request body for an input URL. */
type Body = (input: string) => unknown;

const ops =
  (operations: unknown, output?: unknown): Body =>
  (input) => ({ input, operations, ...(output !== undefined && { output }) });
const out =
  (output: unknown): Body =>
  (input) => ({ input, output });

/** Asserts a 422 validation answer naming exactly `paths`, and that the input was never fetched. */
async function expectInvalid(body: Body, paths: string[]): Promise<void> {
  const { path, url } = freshInput();
  const response = await edit(body(url));
  expect(response.status, JSON.stringify(response.body)).toBe(422);
  expect(response.body).toMatchObject({ error_code: '9000', error_type: 'validation' });
  expect(Object.keys(response.body.error_details).sort()).toEqual([...paths].sort());
  for (const messages of Object.values(response.body.error_details)) {
    expect(messages).toEqual(expect.arrayContaining([expect.any(String)]));
  }
  expect(typeof response.body.error_message).toBe('string');
  expect(response.body.error_message.length).toBeGreaterThan(0);
  expect(images.hits.get(path) ?? 0, 'the input was downloaded').toBe(0);
}

const R = 'operations.resizing';
const FIT = 'operations.resizing.fit';
const ADJ = 'operations.adjustments';
const BG = 'operations.background';
const ST = 'operations.generative.style_transfer';

describe('422 for every invalid form, naming exactly the field, without downloading the input', () => {
  describe('resizing', () => {
    it.each<[string, Body, string[]]>([
      ['both sides "auto"', ops({ resizing: { width: 'auto', height: 'auto' } }), [R]],
      ['both sides "auto" with fit bounds', ops({ resizing: { width: 'auto', height: 'auto', fit: 'bounds' } }), [R]],
      ['width "auto" and no height', ops({ resizing: { width: 'auto' } }), [R]],
      ['a percentage with pixels', ops({ resizing: { width: '50%', height: 100 } }), [R]],
      ['pixels with a percentage', ops({ resizing: { width: 300, height: '50%' } }), [R]],
      ['percentages that differ', ops({ resizing: { width: '50%', height: '60%' } }), [R]],
      ['width "100px"', ops({ resizing: { width: '100px' } }), [`${R}.width`]],
      ['width "0%"', ops({ resizing: { width: '0%' } }), [`${R}.width`]],
      ['width "1001%"', ops({ resizing: { width: '1001%' } }), [`${R}.width`]],
      ['width "-50%"', ops({ resizing: { width: '-50%' } }), [`${R}.width`]],
      ['width "50 %"', ops({ resizing: { width: '50 %' } }), [`${R}.width`]],
      ['width "200" (a string)', ops({ resizing: { width: '200' } }), [`${R}.width`]],
      ['width 0', ops({ resizing: { width: 0 } }), [`${R}.width`]],
      ['width -10', ops({ resizing: { width: -10 } }), [`${R}.width`]],
      ['width 100.5', ops({ resizing: { width: 100.5 } }), [`${R}.width`]],
      ['width 16384', ops({ resizing: { width: 16384 } }), [`${R}.width`]],
      ['width true', ops({ resizing: { width: true } }), [`${R}.width`]],
      ['height "AUTO"', ops({ resizing: { width: 100, height: 'AUTO' } }), [`${R}.height`]],
      ['height "tall"', ops({ resizing: { height: 'tall' } }), [`${R}.height`]],
      ['both sides bad', ops({ resizing: { width: 'wide', height: -1 } }), [`${R}.width`, `${R}.height`]],
      ['resizing not an object', ops({ resizing: 'big' }), [R]],
      ['unknown fit "stretch"', ops({ resizing: { width: 100, fit: 'stretch' } }), [FIT]],
      ['fit "Crop" (case)', ops({ resizing: { width: 100, fit: 'Crop' } }), [FIT]],
      ['fit a number', ops({ resizing: { width: 100, fit: 1 } }), [FIT]],
      ['fit object with an unknown type', ops({ resizing: { width: 100, fit: { type: 'stretch' } } }), [`${FIT}.type`]],
      ['fit object {crop: "left"}', ops({ resizing: { width: 100, fit: { crop: 'left' } } }), [`${FIT}.crop`]],
      [
        'fit bounds with a crop member',
        ops({ resizing: { width: 100, fit: { type: 'bounds', crop: 'center' } } }),
        [`${FIT}.crop`],
      ],
      [
        'fit crop with an extra member',
        ops({ resizing: { width: 100, fit: { crop: 'smart', feathering: '10%' } } }),
        [`${FIT}.feathering`],
      ],
      [
        'fit canvas with outpaint_by',
        ops({ resizing: { width: 100, fit: { type: 'canvas', outpaint_by: '10%' } } }),
        [`${FIT}.outpaint_by`],
      ],
      [
        'fit outpaint with an unknown member',
        ops({ resizing: { fit: { type: 'outpaint', colour: 'red' } } }),
        [`${FIT}.colour`],
      ],
      ['feathering "51%"', ops({ resizing: { fit: { type: 'outpaint', feathering: '51%' } } }), [`${FIT}.feathering`]],
      [
        'feathering "10px"',
        ops({ resizing: { fit: { type: 'outpaint', feathering: '10px' } } }),
        [`${FIT}.feathering`],
      ],
      [
        'feathering 10 (a number)',
        ops({ resizing: { fit: { type: 'outpaint', feathering: 10 } } }),
        [`${FIT}.feathering`],
      ],
      [
        'outpaint_by "51%"',
        ops({ resizing: { fit: { type: 'outpaint', outpaint_by: '51%' } } }),
        [`${FIT}.outpaint_by`],
      ],
      [
        'outpaint_by "10% 50.5%"',
        ops({ resizing: { fit: { type: 'outpaint', outpaint_by: '10% 50.5%' } } }),
        [`${FIT}.outpaint_by`],
      ],
      [
        'outpaint_by mixing units "10% 5px"',
        ops({ resizing: { fit: { type: 'outpaint', outpaint_by: '10% 5px' } } }),
        [`${FIT}.outpaint_by`],
      ],
      [
        'outpaint_by with four values (padding only)',
        ops({ resizing: { fit: { type: 'outpaint', outpaint_by: '1px 2px 3px 4px' } } }),
        [`${FIT}.outpaint_by`],
      ],
      ['outpaint_by "10"', ops({ resizing: { fit: { type: 'outpaint', outpaint_by: '10' } } }), [`${FIT}.outpaint_by`]],
      ['outpaint_by 10', ops({ resizing: { fit: { type: 'outpaint', outpaint_by: 10 } } }), [`${FIT}.outpaint_by`]],
      ['outpaint_by ""', ops({ resizing: { fit: { type: 'outpaint', outpaint_by: '' } } }), [`${FIT}.outpaint_by`]],
    ])('%s', async (_name, body, paths) => {
      await expectInvalid(body, paths);
    });
  });

  describe('adjustments', () => {
    it.each<[string, Body, string[]]>([
      ['hdr 101', ops({ adjustments: { hdr: 101 } }), [`${ADJ}.hdr`]],
      ['hdr -1', ops({ adjustments: { hdr: -1 } }), [`${ADJ}.hdr`]],
      ['hdr 50.5', ops({ adjustments: { hdr: 50.5 } }), [`${ADJ}.hdr`]],
      ['hdr "100"', ops({ adjustments: { hdr: '100' } }), [`${ADJ}.hdr`]],
      ['hdr true', ops({ adjustments: { hdr: true } }), [`${ADJ}.hdr`]],
      ['hdr {intensity: 101}', ops({ adjustments: { hdr: { intensity: 101 } } }), [`${ADJ}.hdr.intensity`]],
      ['hdr {intensity: "high"}', ops({ adjustments: { hdr: { intensity: 'high' } } }), [`${ADJ}.hdr.intensity`]],
      ['hdr {stitching: "yes"}', ops({ adjustments: { hdr: { stitching: 'yes' } } }), [`${ADJ}.hdr.stitching`]],
      [
        'hdr with an unknown member',
        ops({ adjustments: { hdr: { intensity: 50, radius: 3 } } }),
        [`${ADJ}.hdr.radius`],
      ],
      ['exposure 101', ops({ adjustments: { exposure: 101 } }), [`${ADJ}.exposure`]],
      ['exposure -101', ops({ adjustments: { exposure: -101 } }), [`${ADJ}.exposure`]],
      ['exposure 1.5', ops({ adjustments: { exposure: 1.5 } }), [`${ADJ}.exposure`]],
      ['exposure "10"', ops({ adjustments: { exposure: '10' } }), [`${ADJ}.exposure`]],
      ['saturation 150', ops({ adjustments: { saturation: 150 } }), [`${ADJ}.saturation`]],
      ['saturation -100.1', ops({ adjustments: { saturation: -100.1 } }), [`${ADJ}.saturation`]],
      ['contrast -200', ops({ adjustments: { contrast: -200 } }), [`${ADJ}.contrast`]],
      ['contrast 0.5', ops({ adjustments: { contrast: 0.5 } }), [`${ADJ}.contrast`]],
      ['sharpness -1', ops({ adjustments: { sharpness: -1 } }), [`${ADJ}.sharpness`]],
      ['sharpness 101', ops({ adjustments: { sharpness: 101 } }), [`${ADJ}.sharpness`]],
      ['sharpness 2.5', ops({ adjustments: { sharpness: 2.5 } }), [`${ADJ}.sharpness`]],
      [
        'three adjustments out of range',
        ops({ adjustments: { exposure: 300, saturation: -300, sharpness: 300 } }),
        [`${ADJ}.exposure`, `${ADJ}.saturation`, `${ADJ}.sharpness`],
      ],
      ['adjustments not an object', ops({ adjustments: [1, 2] }), [ADJ]],
    ])('%s', async (_name, body, paths) => {
      await expectInvalid(body, paths);
    });
  });

  describe('background', () => {
    const long = 'x'.repeat(129);
    it.each<[string, Body, string[]]>([
      [
        'remove with category and selective',
        ops({ background: { remove: { category: 'general', selective: { object_to_keep: 'red shoe' } } } }),
        [`${BG}.remove.category`],
      ],
      [
        'remove category "animals"',
        ops({ background: { remove: { category: 'animals' } } }),
        [`${BG}.remove.category`],
      ],
      ['remove "yes"', ops({ background: { remove: 'yes' } }), [`${BG}.remove`]],
      ['remove 1', ops({ background: { remove: 1 } }), [`${BG}.remove`]],
      ['remove clipping "yes"', ops({ background: { remove: { clipping: 'yes' } } }), [`${BG}.remove.clipping`]],
      [
        'object_to_keep of 2 characters',
        ops({ background: { remove: { selective: { object_to_keep: 'ab' } } } }),
        [`${BG}.remove.selective.object_to_keep`],
      ],
      [
        'object_to_keep of 129 characters',
        ops({ background: { remove: { selective: { object_to_keep: long } } } }),
        [`${BG}.remove.selective.object_to_keep`],
      ],
      [
        'selective without object_to_keep',
        ops({ background: { remove: { selective: {} } } }),
        [`${BG}.remove.selective.object_to_keep`],
      ],
      ['selective a string', ops({ background: { remove: { selective: 'shoe' } } }), [`${BG}.remove.selective`]],
      [
        'selective with an unknown member',
        ops({ background: { remove: { selective: { object_to_keep: 'shoe', colour: 'red' } } } }),
        [`${BG}.remove.selective.colour`],
      ],
      [
        'remove with an unknown member',
        ops({ background: { remove: { category: 'cars', mode: 'fast' } } }),
        [`${BG}.remove.mode`],
      ],
      ['color "red"', ops({ background: { color: 'red' } }), [`${BG}.color`]],
      ['color "#12345"', ops({ background: { color: '#12345' } }), [`${BG}.color`]],
      ['color "#ggg"', ops({ background: { color: '#ggg' } }), [`${BG}.color`]],
      ['color "ffffff" without #', ops({ background: { color: 'ffffff' } }), [`${BG}.color`]],
      ['color "#ffffff80" (alpha)', ops({ background: { color: '#ffffff80' } }), [`${BG}.color`]],
      ['color 16777215', ops({ background: { color: 16777215 } }), [`${BG}.color`]],
      [
        'color "transparent" with jpeg output',
        ops({ background: { color: 'transparent' } }, { format: 'jpeg' }),
        [`${BG}.color`],
      ],
      [
        'color "transparent" with jpeg options',
        ops({ background: { color: 'transparent' } }, { format: { type: 'jpeg', quality: 90 } }),
        [`${BG}.color`],
      ],
      ['blur level "extreme"', ops({ background: { blur: { level: 'extreme' } } }), [`${BG}.blur.level`]],
      ['blur type "gaussian"', ops({ background: { blur: { type: 'gaussian' } } }), [`${BG}.blur.type`]],
      ['blur "yes"', ops({ background: { blur: 'yes' } }), [`${BG}.blur`]],
      ['blur with an unknown member', ops({ background: { blur: { radius: 5 } } }), [`${BG}.blur.radius`]],
      [
        'blur with category and selective',
        ops({ background: { blur: { category: 'cars', selective: { object_to_keep: 'red car' } } } }),
        [`${BG}.blur.category`],
      ],
      [
        'blur clipping (a remove-only member)',
        ops({ background: { blur: { clipping: true } } }),
        [`${BG}.blur.clipping`],
      ],
    ])('%s', async (_name, body, paths) => {
      await expectInvalid(body, paths);
    });
  });

  describe('padding grammar', () => {
    it.each([
      ['10'],
      ['10 %'],
      ['10%  5%'],
      [' 10%'],
      ['10% '],
      ['10% 5px'],
      ['10px 5%'],
      ['1px 2px 3px'],
      ['10% 10% 10% 10%'],
      ['1px 2px 3px 4px 5px'],
      ['51%'],
      ['10% 51%'],
      ['-5px'],
      ['5.5px'],
      ['px'],
      ['%'],
      ['10em'],
      [''],
      [10],
      [true],
      [['10px']],
    ])('padding %j', async (padding) => {
      await expectInvalid(ops({ padding }), ['operations.padding']);
    });
  });

  describe('restorations, privacy and style transfer', () => {
    it.each<[string, Body, string[]]>([
      ['upscale "magic"', ops({ restorations: { upscale: 'magic' } }), ['operations.restorations.upscale']],
      ['upscale true', ops({ restorations: { upscale: true } }), ['operations.restorations.upscale']],
      [
        'decompress "extreme"',
        ops({ restorations: { decompress: 'extreme' } }),
        ['operations.restorations.decompress'],
      ],
      ['polish "yes"', ops({ restorations: { polish: 'yes' } }), ['operations.restorations.polish']],
      ['blur_car_plate "yes"', ops({ privacy: { blur_car_plate: 'yes' } }), ['operations.privacy.blur_car_plate']],
      ['identity_crop 1', ops({ privacy: { identity_crop: 1 } }), ['operations.privacy.identity_crop']],
      [
        'style_transfer with background remove',
        ops({ background: { remove: true }, generative: { style_transfer: { prompt: 'watercolour' } } }),
        [ST],
      ],
      [
        'style_transfer with background blur',
        ops({ background: { blur: { level: 'low' } }, generative: { style_transfer: { prompt: 'watercolour' } } }),
        [ST],
      ],
      ['style_transfer without reference or prompt', ops({ generative: { style_transfer: {} } }), [ST]],
      ['style_transfer a string', ops({ generative: { style_transfer: 'watercolour' } }), [ST]],
      [
        'style_strength 1.5',
        ops({ generative: { style_transfer: { prompt: 'watercolour', style_strength: 1.5 } } }),
        [`${ST}.style_strength`],
      ],
      [
        'style_strength -0.1',
        ops({ generative: { style_transfer: { prompt: 'watercolour', style_strength: -0.1 } } }),
        [`${ST}.style_strength`],
      ],
      [
        'denoising_strength "0.5"',
        ops({ generative: { style_transfer: { prompt: 'watercolour', denoising_strength: '0.5' } } }),
        [`${ST}.denoising_strength`],
      ],
      [
        'depth_strength 2',
        ops({ generative: { style_transfer: { prompt: 'watercolour', depth_strength: 2 } } }),
        [`${ST}.depth_strength`],
      ],
      ['prompt of 2 characters', ops({ generative: { style_transfer: { prompt: 'ab' } } }), [`${ST}.prompt`]],
      [
        'style_reference_image not a URL',
        ops({ generative: { style_transfer: { style_reference_image: 'watercolour.jpg' } } }),
        [`${ST}.style_reference_image`],
      ],
      [
        'style_reference_image a folder',
        ops({ generative: { style_transfer: { style_reference_image: 'storage://styles/' } } }),
        [`${ST}.style_reference_image`],
      ],
      [
        'style_transfer with an unknown member',
        ops({ generative: { style_transfer: { prompt: 'watercolour', seed: 4 } } }),
        [`${ST}.seed`],
      ],
    ])('%s', async (_name, body, paths) => {
      await expectInvalid(body, paths);
    });
  });

  describe('output', () => {
    it.each<[string, Body, string[]]>([
      ['format "gif"', out({ format: 'gif' }), ['output.format']],
      ['format "JPEG" (case)', out({ format: 'JPEG' }), ['output.format']],
      ['format "jpg"', out({ format: 'jpg' }), ['output.format']],
      ['format 1', out({ format: 1 }), ['output.format']],
      ['format {type: "gif"}', out({ format: { type: 'gif' } }), ['output.format.type']],
      ['format object without type', out({ format: { quality: 80 } }), ['output.format.type']],
      ['jpeg quality 0', out({ format: { type: 'jpeg', quality: 0 } }), ['output.format.quality']],
      ['jpeg quality 101', out({ format: { type: 'jpeg', quality: 101 } }), ['output.format.quality']],
      ['jpeg quality 80.5', out({ format: { type: 'jpeg', quality: 80.5 } }), ['output.format.quality']],
      ['jpeg progressive "yes"', out({ format: { type: 'jpeg', progressive: 'yes' } }), ['output.format.progressive']],
      ['jpeg with compression', out({ format: { type: 'jpeg', compression: 'lossy' } }), ['output.format.compression']],
      ['png compression "max"', out({ format: { type: 'png', compression: 'max' } }), ['output.format.compression']],
      ['png compression 9', out({ format: { type: 'png', compression: 9 } }), ['output.format.compression']],
      ['png with quality', out({ format: { type: 'png', quality: 80 } }), ['output.format.quality']],
      ['webp with quality at the top', out({ format: { type: 'webp', quality: 80 } }), ['output.format.quality']],
      [
        'webp compression "medium"',
        out({ format: { type: 'webp', compression: 'medium' } }),
        ['output.format.compression'],
      ],
      [
        'webp compression {type: "lossy", quality: 0}',
        out({ format: { type: 'webp', compression: { type: 'lossy', quality: 0 } } }),
        ['output.format.compression.quality'],
      ],
      [
        'webp compression {type: "lossy", quality: 101}',
        out({ format: { type: 'webp', compression: { type: 'lossy', quality: 101 } } }),
        ['output.format.compression.quality'],
      ],
      [
        'webp compression {type: "lossless", quality: 90}',
        out({ format: { type: 'webp', compression: { type: 'lossless', quality: 90 } } }),
        ['output.format.compression.quality'],
      ],
      [
        'webp compression {type: "medium"}',
        out({ format: { type: 'webp', compression: { type: 'medium' } } }),
        ['output.format.compression.type'],
      ],
      [
        'webp compression {quality: 80} without type',
        out({ format: { type: 'webp', compression: { quality: 80 } } }),
        ['output.format.compression.type'],
      ],
      [
        'avif compression {type: "lossy", level: 3}',
        out({ format: { type: 'avif', compression: { type: 'lossy', level: 3 } } }),
        ['output.format.compression.level'],
      ],
      [
        'tiff compression {type: "lossy", quality: 101}',
        out({ format: { type: 'tiff', compression: { type: 'lossy', quality: 101 } } }),
        ['output.format.compression.quality'],
      ],
      [
        'tiff compression {type: "lossy", quality: 0}',
        out({ format: { type: 'tiff', compression: { type: 'lossy', quality: 0 } } }),
        ['output.format.compression.quality'],
      ],
      ['tiff compression "lzw"', out({ format: { type: 'tiff', compression: 'lzw' } }), ['output.format.compression']],
      ['metadata dpi 0', out({ metadata: { dpi: 0 } }), ['output.metadata.dpi']],
      ['metadata dpi 10001', out({ metadata: { dpi: 10001 } }), ['output.metadata.dpi']],
      ['metadata dpi 72.5', out({ metadata: { dpi: 72.5 } }), ['output.metadata.dpi']],
      ['metadata dpi "300"', out({ metadata: { dpi: '300' } }), ['output.metadata.dpi']],
      ['metadata not an object', out({ metadata: 'print' }), ['output.metadata']],
      [
        'color_space CMYK with png',
        out({ format: 'png', metadata: { color_space: 'CMYK' } }),
        ['output.metadata.color_space'],
      ],
      [
        'color_space {type: "CMYK"} with webp options',
        out({ format: { type: 'webp' }, metadata: { color_space: { type: 'CMYK', color_profile: 'ISO_Coated' } } }),
        ['output.metadata.color_space'],
      ],
      [
        'unknown color_profile',
        out({ format: 'jpeg', metadata: { color_space: { type: 'CMYK', color_profile: 'Fogra39' } } }),
        ['output.metadata.color_space.color_profile'],
      ],
      ['color_space "LAB"', out({ metadata: { color_space: 'LAB' } }), ['output.metadata.color_space']],
      ['color_space "rgb" (case)', out({ metadata: { color_space: 'rgb' } }), ['output.metadata.color_space']],
      [
        'color_space {type: "RGB"} with a profile (only CMYK has one)',
        out({ metadata: { color_space: { type: 'RGB', color_profile: 'ISO_Coated' } } }),
        ['output.metadata.color_space.color_profile'],
      ],
      [
        'color_space object with an unknown member',
        out({ format: 'jpeg', metadata: { color_space: { type: 'CMYK', intent: 'perceptual' } } }),
        ['output.metadata.color_space.intent'],
      ],
      ['output destination "not a url"', out('not a url'), ['output']],
      ['output destination "ftp://host/a.jpg"', out('ftp://example.com/a.jpg'), ['output']],
      ['output destination "storage://"', out('storage://'), ['output']],
      ['output 42', out(42), ['output']],
      ['output []', out([]), ['output']],
      ['output.destination "not a url"', out({ destination: 'not a url' }), ['output.destination']],
      ['output.destination "file:///tmp/a.jpg"', out({ destination: 'file:///tmp/a.jpg' }), ['output.destination']],
      ['output.destination ""', out({ destination: '' }), ['output.destination']],
      ['output.destination 7', out({ destination: 7 }), ['output.destination']],
      [
        'output.destination of 4097 characters',
        out({ destination: `storage://s/${'a'.repeat(4085)}` }),
        ['output.destination'],
      ],
    ])('%s', async (_name, body, paths) => {
      await expectInvalid(body, paths);
    });
  });

  describe('input', () => {
    const tooLong = `http://127.0.0.1:9/${'a'.repeat(512 - 'http://127.0.0.1:9/'.length + 1)}`;
    it.each<[string, unknown]>([
      ['missing', { operations: {} }],
      ['null', { input: null }],
      ['empty', { input: '' }],
      ['513 characters', { input: tooLong }],
      ['not a URL', { input: 'photo.jpg' }],
      ['ftp', { input: 'ftp://example.com/photo.jpg' }],
      ['a data URL', { input: 'data:image/png;base64,iVBORw0KGgo=' }],
      ['a number', { input: 42 }],
      ['an object', { input: { url: 'https://example.com/a.jpg' } }],
      ['a storage folder', { input: 'storage://media/photos/' }],
      ['a storage reference without a name', { input: 'storage:///photo.jpg' }],
    ])('input %s', async (_name, body) => {
      await expectInvalid(() => body, ['input']);
    });

    it('takes an input of exactly 512 characters', async () => {
      const { path } = freshInput();
      const padded = `${path}?${'p'.repeat(512 - images.url(path).length - 1)}`;
      const input = images.url(padded);
      expect(input).toHaveLength(512);
      const response = await edit({ input });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(images.hits.get(path)).toBe(1);
    });
  });

  describe('unknown members at every level', () => {
    it.each<[string, Body, string]>([
      ['top level', (input) => ({ input, foo: 1 }), 'foo'],
      ['operations', ops({ foo: {} }), 'operations.foo'],
      ['operations.resizing', ops({ resizing: { width: 100, foo: 1 } }), 'operations.resizing.foo'],
      ['operations.restorations', ops({ restorations: { foo: 1 } }), 'operations.restorations.foo'],
      ['operations.adjustments', ops({ adjustments: { brightness: 10 } }), 'operations.adjustments.brightness'],
      ['operations.background', ops({ background: { shadow: true } }), 'operations.background.shadow'],
      ['operations.privacy', ops({ privacy: { blur_faces: true } }), 'operations.privacy.blur_faces'],
      ['operations.generative', ops({ generative: { inpaint: {} } }), 'operations.generative.inpaint'],
      ['output', out({ format: 'png', name: 'a.png' }), 'output.name'],
      ['output.format', out({ format: { type: 'jpeg', foo: 1 } }), 'output.format.foo'],
      ['output.metadata', out({ metadata: { dpi: 72, author: 'me' } }), 'output.metadata.author'],
    ])('%s', async (_name, body, path) => {
      await expectInvalid(body, [path]);
    });
  });

  describe('bodies that are not an object', () => {
    it.each([
      ['an array', '[{"input": "https://example.com/a.jpg"}]'],
      ['a string', '"https://example.com/a.jpg"'],
      ['a number', '42'],
      ['null', 'null'],
    ])('%s is 422 at body', async (_name, rawBody) => {
      const response = await call(app.url, 'POST', '/v1/image/edit', { key: app.adminKey, rawBody });
      expect(response.status, response.text).toBe(422);
      expect(response.body).toMatchObject({ error_code: '9000', error_type: 'validation' });
      expect(Object.keys(response.body.error_details)).toEqual(['body']);
    });
  });

  describe('several problems in one answer', () => {
    it('lists every problem of the body, each under its own path, in one 422', async () => {
      await expectInvalid(
        (input) => ({
          input: `${input}#`.replace('http://', 'gopher://'),
          operations: {
            resizing: { width: 0, fit: 'stretch' },
            adjustments: { exposure: 200, sharpness: -1 },
            background: { color: 'transparent' },
            padding: '60%',
            extra: true,
          },
          output: { format: 'jpeg', metadata: { dpi: 0 } },
        }),
        [
          'input',
          'operations.resizing.width',
          'operations.resizing.fit',
          'operations.adjustments.exposure',
          'operations.adjustments.sharpness',
          'operations.background.color',
          'operations.padding',
          'operations.extra',
          'output.metadata.dpi',
        ],
      );
    });

    it('joins the reasons as sentences in error_message', async () => {
      const { url } = freshInput();
      const response = await edit({ input: url, operations: { adjustments: { exposure: 200, contrast: 200 } } });
      expect(response.status).toBe(422);
      expect(response.body.error_message).toMatch(/exposure.*\. .*contrast.*\.$/);
    });

    it('reports an unknown top-level member together with the problems inside the body', async () => {
      await expectInvalid(
        (input) => ({ input, foo: 1, operations: { adjustments: { exposure: 200 } } }),
        ['foo', 'operations.adjustments.exposure'],
      );
    });
  });
});

/** The field paths a 501 names (its details also carry `request_id`). */
function operationPaths(details: Record<string, unknown>): string[] {
  return Object.keys(details)
    .filter((key) => key !== 'request_id')
    .sort();
}

describe('501 for valid operations that need a model, naming the operation', () => {
  it.each<[string, unknown, string]>([
    ['background remove true', { background: { remove: true } }, 'operations.background.remove'],
    [
      'background remove {category: "cars", clipping: true}',
      { background: { remove: { category: 'cars', clipping: true } } },
      'operations.background.remove',
    ],
    [
      'background remove selective',
      { background: { remove: { selective: { object_to_keep: 'red shoe' } } } },
      'operations.background.remove',
    ],
    ['background blur true', { background: { blur: true } }, 'operations.background.blur'],
    [
      'background blur {type: "lens", level: "high"}',
      { background: { blur: { type: 'lens', level: 'high' } } },
      'operations.background.blur',
    ],
    ['privacy blur_car_plate', { privacy: { blur_car_plate: true } }, 'operations.privacy.blur_car_plate'],
    [
      'style_transfer',
      { generative: { style_transfer: { prompt: 'soft watercolour', style_strength: 0.5 } } },
      'operations.generative.style_transfer',
    ],
    ['fit outpaint', { resizing: { width: 600, height: 300, fit: 'outpaint' } }, 'operations.resizing.fit'],
    [
      'fit outpaint, both sides "auto"',
      { resizing: { width: 'auto', height: 'auto', fit: 'outpaint' } },
      'operations.resizing.fit',
    ],
    [
      'fit outpaint object, no size',
      { resizing: { fit: { type: 'outpaint', feathering: '15%', outpaint_by: '10% 5%' } } },
      'operations.resizing.fit',
    ],
  ])('%s', async (_name, operations, path) => {
    const { url } = freshInput();
    const response = await edit({ input: url, operations });
    expect(response.status, JSON.stringify(response.body)).toBe(501);
    expect(response.body).toMatchObject({ error_code: '1604', error_type: 'image' });
    expect(operationPaths(response.body.error_details)).toEqual([path]);
    expect(response.body.error_message).toContain(path);
    // A 5xx body carries the request id (STYLE.md rule 4), the one of the response header.
    expect(response.body.error_details.request_id).toBe(response.headers.get('x-request-id'));
  });

  it('names every missing operation of one request', async () => {
    const { url } = freshInput();
    const response = await edit({
      input: url,
      operations: {
        background: { remove: true },
        restorations: { polish: true },
        privacy: { identity_crop: true, blur_car_plate: true },
      },
    });
    expect(response.status).toBe(501);
    // identity_crop and polish are not named: their models ship with the service and are installed here
    expect(operationPaths(response.body.error_details)).toEqual([
      'operations.background.remove',
      'operations.privacy.blur_car_plate',
    ]);
  });

  it.each<[string, unknown]>([
    ['polish false', { restorations: { polish: false } }],
    ['remove false', { background: { remove: false } }],
    ['blur false', { background: { blur: false } }],
    ['privacy flags false', { privacy: { blur_car_plate: false, identity_crop: false } }],
  ])('does not refuse what needs no model: %s', async (_name, operations) => {
    const { url } = freshInput();
    const response = await edit({ input: url, operations });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });

  it.each<[string, unknown]>([
    ['upscale smart_resize', { restorations: { upscale: 'smart_resize' }, resizing: { width: 100, fit: 'bounds' } }],
    ['upscale faces', { restorations: { upscale: 'faces' }, resizing: { width: 100, fit: 'bounds' } }],
    ['upscale digital_art', { restorations: { upscale: 'digital_art' }, resizing: { width: 50, height: 50 } }],
    ['polish', { restorations: { polish: true }, resizing: { width: 100, fit: 'bounds' } }],
  ])('runs what the installed super-resolution model serves: %s', async (_name, operations) => {
    const { url } = freshInput();
    const response = await edit({ input: url, operations });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  });

  it.each<[string, unknown, string[]]>([
    [
      'upscale faces with exposure 500',
      { restorations: { upscale: 'faces' }, adjustments: { exposure: 500 } },
      ['operations.adjustments.exposure'],
    ],
    [
      'outpaint with feathering "60%"',
      { resizing: { fit: { type: 'outpaint', feathering: '60%' } } },
      [`${FIT}.feathering`],
    ],
    [
      'style_transfer with background remove',
      { background: { remove: true }, generative: { style_transfer: { prompt: 'soft watercolour' } } },
      [ST],
    ],
    [
      'style_transfer with strength 2',
      { generative: { style_transfer: { prompt: 'soft watercolour', depth_strength: 2 } } },
      [`${ST}.depth_strength`],
    ],
    ['remove with an unknown category', { background: { remove: { category: 'people' } } }, [`${BG}.remove.category`]],
    ['identity_crop "yes"', { privacy: { identity_crop: 'yes' } }, ['operations.privacy.identity_crop']],
    ['polish with padding "60%"', { restorations: { polish: true }, padding: '60%' }, ['operations.padding']],
  ])('validates first: %s is 422, not 501, without a download', async (_name, operations, paths) => {
    await expectInvalid(ops(operations), paths);
  });

  it.each<[string, unknown, string]>([
    // Checks that need the image size come before the 501 too.
    [
      'outpaint_by "300px" of a 400x300 image',
      { resizing: { fit: { type: 'outpaint', outpaint_by: '300px' } } },
      `${FIT}.outpaint_by`,
    ],
    [
      'polish with a 20 MP target',
      { restorations: { polish: true }, resizing: { width: 5000, height: 4000 } },
      'operations.restorations.polish',
    ],
    ['outpaint to 17 MP', { resizing: { width: 5000, height: 3400, fit: 'outpaint' } }, 'operations.resizing'],
  ])('validates against the image before answering 501: %s is 422', async (_name, operations, path) => {
    const { url } = freshInput();
    const response = await edit({ input: url, operations });
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(response.body).toMatchObject({ error_code: '9000', error_type: 'validation' });
    expect(Object.keys(response.body.error_details)).toEqual([path]);
  });

  it('refuses CMYK when the output falls back to png (a png input, no format), after reading it', async () => {
    images.put('/shoe.png', await quadrantsImage({ format: 'png' }));
    const response = await edit({ input: images.url('/shoe.png'), output: { metadata: { color_space: 'CMYK' } } });
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(Object.keys(response.body.error_details)).toEqual(['output.metadata.color_space']);
  });

  it('refuses "transparent" when the output falls back to jpeg (a jpeg input, no format), after reading it', async () => {
    const { url } = freshInput();
    const response = await edit({ input: url, operations: { background: { color: 'transparent' } } });
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(Object.keys(response.body.error_details)).toEqual([`${BG}.color`]);
  });
});
