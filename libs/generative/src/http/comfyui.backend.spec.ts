import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ComfyUiFake } from '../../../../test/helpers/fake-generators/comfyui';
import { json, multipart, promptColour } from '../../../../test/helpers/fake-generators/fake-server';
import {
  HEIGHT,
  OBJECT_RGB,
  RecordingLocal,
  WIDTH,
  at,
  generativeConfig,
  outpaintJob,
  pixelsOf,
  rejection,
  warningsDuring,
  sceneJob,
  styleJob,
  templateBackground,
} from '../../../../test/helpers/fake-generators/jobs';
import { rejected } from '../../../../test/helpers/rejected';
import { ComfyUiBackend } from './comfyui.backend';
import { defaultWorkflowPath } from './comfyui-workflow';

type Node = { class_type: string; inputs: Record<string, unknown> };

let fake: ComfyUiFake;
let local: RecordingLocal;

beforeEach(async () => {
  fake = await new ComfyUiFake().start();
  local = new RecordingLocal();
});
afterEach(() => fake.close());

function backend(overrides: Parameters<typeof generativeConfig>[0] = {}) {
  return new ComfyUiBackend(
    generativeConfig({ backend: 'comfyui', url: fake.url, models: { v1: 'sdxl-base.safetensors' }, ...overrides }),
    local,
  );
}

/** The workflow the fake received, its nodes by class. */
function queued(): Record<string, Node> {
  const { prompt } = json(fake.to('POST /prompt')[0]) as { prompt: Record<string, Node> };
  return Object.fromEntries(Object.values(prompt).map((node) => [node.class_type, node]));
}

async function uploaded(index: number): Promise<{ name: string; pixels: Buffer; channels: number }> {
  const form = await multipart(fake.to('POST /upload/image')[index]);
  const file = form.get('image') as File;
  expect(form.get('type')).toBe('input');
  expect(form.get('overwrite')).toBe('true');
  const bytes = Buffer.from(await file.arrayBuffer());
  const { channels } = await sharp(bytes).metadata();
  return { name: file.name, pixels: await sharp(bytes).removeAlpha().raw().toBuffer(), channels };
}

describe('ComfyUiBackend', () => {
  it('runs a prompt scene: uploads, queues the workflow with the job mapped, polls, fetches the image', async () => {
    const result = await backend().scene(sceneJob());
    const flow = fake.requests.map(
      (request) => `${request.method} ${request.path.replace(/\/history\/.*/, '/history/{id}')}`,
    );
    expect(flow.slice(0, 4)).toEqual([
      'GET /models/checkpoints',
      'POST /upload/image',
      'POST /upload/image',
      'POST /prompt',
    ]);
    expect(flow).toContain('GET /history/{id}');
    expect(flow.indexOf('GET /view')).toBeGreaterThan(flow.lastIndexOf('GET /history/{id}'));

    const nodes = queued();
    expect(nodes.KSampler.inputs).toMatchObject({ seed: 1002, steps: 12, denoise: 1 });
    expect(nodes.CheckpointLoaderSimple.inputs.ckpt_name).toBe('sdxl-base.safetensors');
    const texts = Object.values((json(fake.to('POST /prompt')[0]) as { prompt: Record<string, Node> }).prompt)
      .filter((node) => node.class_type === 'CLIPTextEncode')
      .map((node) => node.inputs.text);
    expect(texts).toEqual(['a sunny beach', 'people']);
    expect(result.details).toMatchObject({ generator: 'comfyui', prompt_id: expect.any(String) });

    // The mask: white (paint) outside the object, black on it; the image: the object on neutral grey.
    const image = await uploaded(0);
    const mask = await uploaded(1);
    expect(nodes.LoadImage.inputs.image).toBe(image.name);
    expect(nodes.LoadImageMask.inputs).toEqual({ image: mask.name, channel: 'red' });
    expect(mask.channels).toBe(1);
    expect(at({ data: mask.pixels, width: WIDTH }, 0, 0)).toEqual([255, 255, 255]);
    expect(at({ data: mask.pixels, width: WIDTH }, WIDTH / 2, HEIGHT / 2)).toEqual([0, 0, 0]);
    expect(at({ data: image.pixels, width: WIDTH }, 2, 2)).toEqual([128, 128, 128]);
    expect(at({ data: image.pixels, width: WIDTH }, WIDTH / 2, HEIGHT / 2)).toEqual(OBJECT_RGB);

    // The answer: the prompt's colour around the object, the object untouched.
    const out = await pixelsOf(result.image);
    expect(at(out, 2, 2)).toEqual(promptColour('a sunny beach'));
    expect(at(out, WIDTH / 2, HEIGHT / 2)).toEqual(OBJECT_RGB);
  });

  it('repaints a template by 0.75 (transform) and 0.35 (adjust) over the template', async () => {
    // The template's view joins the client's prompt.
    const colour = promptColour('a sunny beach, front view');
    for (const [mode, denoise] of [
      ['transform', 0.75],
      ['adjust', 0.35],
    ] as const) {
      fake.requests.length = 0;
      const result = await backend().scene(sceneJob(templateBackground(mode, [200, 180, 40])));
      expect(queued().KSampler.inputs.denoise).toBe(denoise);
      const expected = [200, 180, 40].map((value, channel) => Math.round(value + (colour[channel] - value) * denoise));
      expect(at(await pixelsOf(result.image), 2, 2)).toEqual(expected);
    }
  });

  it('leaves shadows and locked templates to the local backend, without a request', async () => {
    const shadows = await backend().scene(sceneJob({ kind: 'shadows', colour: 'transparent', view: 'top' }));
    const locked = await backend().scene(sceneJob(templateBackground('lock')));
    expect(local.scenes.map((job) => job.background.kind)).toEqual(['shadows', 'template']);
    expect(shadows.details).toEqual({ by: 'local' });
    expect(locked.details).toEqual({ by: 'local' });
    expect(fake.requests).toHaveLength(0);
  });

  it('outpaints with the mask as given, denoise 1', async () => {
    const job = outpaintJob();
    const image = await pixelsOf(await backend().outpaint(job));
    expect(queued().KSampler.inputs).toMatchObject({ denoise: 1, steps: 25, seed: 7 });
    expect(at(image, 0, 0)).toEqual(promptColour('a meadow'));
    expect(at(image, 40, 30)).toEqual([90, 140, 60]);
  });

  it('style transfer paints the whole image at the style denoise; the reference is not sent', async () => {
    const image = await pixelsOf(await backend().styleTransfer(styleJob()));
    expect(queued().KSampler.inputs).toMatchObject({ denoise: 0.5, steps: 40 });
    expect(fake.to('POST /upload/image')).toHaveLength(2);
    const colour = promptColour('oil painting');
    const expected = colour.map((value) => Math.round(100 + (value - 100) * 0.5));
    expect(at(image, 0, 0)).toEqual(expected);
    expect(at(image, WIDTH - 1, HEIGHT - 1)).toEqual(expected);
  });

  it('picks the first installed checkpoint when none is configured, and refuses one the server lacks', async () => {
    await backend({ models: {} }).scene(sceneJob());
    expect(queued().CheckpointLoaderSimple.inputs.ckpt_name).toBe('sd15-inpainting.safetensors');
    const error = await rejected(backend({ models: { v1: 'missing.ckpt' } }).scene(sceneJob()));
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/^ComfyUI at 127\.0\.0\.1:\d+ has no checkpoint "missing.ckpt"/);
    expect(fake.to('POST /prompt')).toHaveLength(1);
  });

  it('names the node of a validation error (400 node_errors), without retrying', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'comfy-'));
    const path = join(dir, 'workflow.json');
    const workflow = JSON.parse(readFileSync(defaultWorkflowPath(), 'utf8'));
    workflow['7'] = { class_type: 'IPAdapterApply', inputs: { samples: ['6', 0], mask: ['3', 0] } };
    writeFileSync(path, JSON.stringify(workflow));
    const { result: error, warnings } = await warningsDuring(() =>
      rejected(backend({ comfyWorkflow: path }).scene(sceneJob())),
    );
    expect(error.status).toBe(502);
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(
      /^ComfyUI at 127\.0\.0\.1:\d+ answered 400 \(POST \/prompt: it refused the workflow\)$/,
    );
    // what ComfyUI said (its node's error) goes to the server log, not to the client
    expect(warnings).toContain('Cannot execute because node IPAdapterApply does not exist');
    expect(fake.to('POST /prompt')).toHaveLength(1);
  });

  it('refuses a prompt id that is no id (it would go into paths and messages)', async () => {
    fake.fail('POST /prompt', { status: 200, body: { prompt_id: '../../queue?<b>x</b>', number: 1, node_errors: {} } });
    const { result: error, warnings } = await warningsDuring(() => rejected(backend().scene(sceneJob())));
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/^ComfyUI at 127\.0\.0\.1:\d+ answered POST \/prompt without a usable prompt id$/);
    expect(warnings).toContain('it said: ../../queue?<b>x</b>');
    expect(fake.requests.filter((request) => request.path.startsWith('/history/'))).toHaveLength(0);
  });

  it('names the node and exception of an execution error', async () => {
    fake.executionError = {
      nodeId: '8',
      message: 'CUDA out of memory. Tried to allocate 2.00 GiB',
      type: 'torch.OutOfMemoryError',
    };
    const { result: error, warnings } = await warningsDuring(() => rejected(backend().scene(sceneJob())));
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/^ComfyUI at 127\.0\.0\.1:\d+ failed at node 8 \(KSampler\)$/);
    expect(warnings).toMatch(/failed at node 8 \(KSampler\); it said: CUDA out of memory/);
    expect(fake.to('GET /view')).toHaveLength(0);
  });

  it('answers 504 when the prompt is not done in time, and takes it out of the queue', async () => {
    fake.runMs = Infinity;
    const started = Date.now();
    const error = await rejected(backend({ timeoutMs: 300 }).scene(sceneJob()));
    expect(error.status).toBe(504);
    expect(error.codeName).toBe('GENERATOR_TIMEOUT');
    expect(error.message).toMatch(/^ComfyUI at 127\.0\.0\.1:\d+ did not finish within 300 ms/);
    expect(Date.now() - started).toBeLessThan(1500);
    const [promptId] = fake.prompts.keys();
    expect(fake.to('POST /queue').map((request) => json(request))).toEqual([{ delete: [promptId] }]);
    expect(fake.to('POST /interrupt').map((request) => json(request))).toEqual([{ prompt_id: promptId }]);
  });

  it("stops at once on the job's abort, with its reason", async () => {
    fake.runMs = Infinity;
    const controller = new AbortController();
    const reason = new Error('the request is over');
    setTimeout(() => controller.abort(reason), 100);
    const started = Date.now();
    const error = await rejection(backend().scene(sceneJob(undefined, { signal: controller.signal })));
    expect(error).toBe(reason);
    expect(Date.now() - started).toBeLessThan(400);
    const polls = fake.requests.filter((request) => request.path.startsWith('/history/')).length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.requests.filter((request) => request.path.startsWith('/history/'))).toHaveLength(polls);
  });

  it('fails with 502 when the prompt is lost (neither queued nor in the history), looking at the queue sparingly', async () => {
    fake.runMs = Infinity;
    const server = fake;
    const restart = setInterval(() => server.prompts.size > 0 && server.pending.splice(0), 20); // the queue is gone
    const error = await rejected(backend().scene(sceneJob()));
    clearInterval(restart);
    expect(error.status).toBe(502);
    expect(error.message).toMatch(
      /^ComfyUI at 127\.0\.0\.1:\d+ lost prompt [0-9a-f-]{36}: neither queued nor in the history/,
    );
    const polls = fake.requests.filter((request) => request.path.startsWith('/history/')).length;
    expect(fake.to('GET /queue').length).toBeLessThanOrEqual(Math.ceil(polls / 20));
  });

  it('looks once more when /view answers 404 right after the history listed the file', async () => {
    fake.fail('GET /view', { status: 404 });
    const out = await pixelsOf((await backend().scene(sceneJob())).image);
    expect(fake.to('GET /view')).toHaveLength(2);
    expect(at(out, 2, 2)).toEqual(promptColour('a sunny beach'));
  });

  it('retries an upload that met a 503, a bounded number of times', async () => {
    fake.fail('POST /upload/image', { status: 503, body: '503 Service Unavailable' }, 1);
    await backend().scene(sceneJob());
    expect(fake.to('POST /upload/image')).toHaveLength(3);

    fake.requests.length = 0;
    fake.fail('POST /upload/image', { status: 503, body: 'overloaded' }, 10);
    const error = await rejected(backend({ retries: 1 }).scene(sceneJob()));
    expect(error.message).toMatch(/^ComfyUI at 127\.0\.0\.1:\d+ answered 503 \(POST \/upload\/image\)$/);
    expect(fake.to('POST /upload/image')).toHaveLength(2);
  });

  it('refuses a workflow file without the required placeholders, or not JSON, at construction', () => {
    const dir = mkdtempSync(join(tmpdir(), 'comfy-'));
    writeFileSync(join(dir, 'bad.json'), '{"1": {"class_type": "KSampler", "inputs": {"seed": "{{seed}}"}}}');
    writeFileSync(join(dir, 'not.json'), '{ nope');
    expect(() => backend({ comfyWorkflow: join(dir, 'bad.json') })).toThrow(
      /COMFYUI_WORKFLOW .*bad\.json: has no "\{\{image\}\}", "\{\{mask\}\}", "\{\{prompt\}\}", "\{\{denoise\}\}" placeholder/,
    );
    expect(() => backend({ comfyWorkflow: join(dir, 'not.json') })).toThrow(/not\.json: is not JSON/);
  });
});
