import { createHash, randomUUID } from 'node:crypto';
import { type Answer, FakeServer, type RecordedRequest, decode, json, multipart, paint } from './fake-server';

/**
 * A fake ComfyUI (docs/generator-protocols.md, A): /upload/image (rename on a clash unless overwrite), /prompt with
 * validation of the workflow (unknown class, no output node, missing input file, checkpoint not in the list: 400 with
 * `error` and `node_errors` as ComfyUI gives them), a queue that answers `{}` on /history until the prompt has run,
 * history entries with `status.messages` event tuples, /view, /queue, /interrupt. It "runs" the core inpainting
 * graph: the LoadImage picture, moved towards the positive prompt's colour by the KSampler's denoise where the
 * LoadImageMask mask (or LoadImage's alpha, inverted) is white.
 */

const CORE_NODES = new Set([
  'CheckpointLoaderSimple',
  'LoadImage',
  'LoadImageMask',
  'CLIPTextEncode',
  'VAEEncode',
  'VAEEncodeForInpaint',
  'SetLatentNoiseMask',
  'KSampler',
  'VAEDecode',
  'SaveImage',
  'PreviewImage',
  'EmptyLatentImage',
]);

type Node = { class_type?: string; inputs?: Record<string, unknown> };
type Workflow = Record<string, Node>;

export interface ComfyUiFakeOptions {
  checkpoints?: string[];
  /** How long a queued prompt takes to run, in milliseconds; `Infinity`: it never finishes. */
  runMs?: number;
}

export class ComfyUiFake extends FakeServer {
  readonly files = new Map<string, Buffer>();
  readonly outputs = new Map<string, Buffer>();
  readonly history = new Map<string, unknown>();
  readonly pending: string[] = [];
  /** Prompts given to /prompt and accepted, by id. */
  readonly prompts = new Map<string, Workflow>();
  checkpoints: string[];
  runMs: number;
  /** The next run fails in this node with this exception (ComfyUI's execution_error). */
  executionError?: { nodeId: string; message: string; type?: string };
  private counter = 0;

  constructor(options: ComfyUiFakeOptions = {}) {
    super();
    this.checkpoints = options.checkpoints ?? ['sd15-inpainting.safetensors', 'sdxl-base.safetensors'];
    this.runMs = options.runMs ?? 20;
  }

  protected async handle(request: RecordedRequest): Promise<Answer> {
    const route = `${request.method} ${request.path.replace(/^\/api\//, '/')}`;
    if (route === 'POST /upload/image') return this.upload(request);
    if (route === 'GET /models/checkpoints') return { status: 200, body: this.checkpoints };
    if (route === 'POST /prompt') return this.queue(request);
    if (route.startsWith('GET /history/')) {
      const id = decodeURIComponent(request.path.slice(request.path.lastIndexOf('/') + 1));
      return { status: 200, body: this.history.has(id) ? { [id]: this.history.get(id) } : {} };
    }
    if (route === 'GET /view') return this.view(request);
    if (route === 'GET /queue') {
      return {
        status: 200,
        body: {
          queue_running: this.pending.slice(0, 1).map((id, n) => [n, id, {}, {}, []]),
          queue_pending: this.pending.slice(1).map((id, n) => [n + 1, id, {}, {}, []]),
        },
      };
    }
    if (route === 'POST /queue') {
      const { delete: ids = [] } = json(request) as { delete?: string[] };
      for (const id of ids) if (this.pending.indexOf(id) > 0) this.pending.splice(this.pending.indexOf(id), 1);
      return { status: 200 };
    }
    if (route === 'POST /interrupt' || route === 'POST /history') return { status: 200 };
    return { status: 404, body: '404: Not Found' };
  }

  private async upload(request: RecordedRequest): Promise<Answer> {
    const form = await multipart(request);
    const file = form.get('image');
    if (!(file instanceof File) || !file.name) return { status: 400 };
    const type = String(form.get('type') ?? 'input');
    const subfolder = String(form.get('subfolder') ?? '');
    if (subfolder.includes('..')) return { status: 400 };
    const overwrite = ['true', '1'].includes(String(form.get('overwrite') ?? ''));
    const bytes = Buffer.from(await file.arrayBuffer());
    let name = file.name;
    const key = (candidate: string) => `${type}/${subfolder ? `${subfolder}/` : ''}${candidate}`;
    if (!overwrite) {
      const [stem, extension] = [name.replace(/\.[^.]*$/, ''), name.slice(name.lastIndexOf('.'))];
      for (let n = 1; this.files.has(key(name)) && !this.files.get(key(name))!.equals(bytes); n += 1) {
        name = `${stem} (${n})${extension}`;
      }
    }
    this.files.set(key(name), bytes);
    return { status: 200, body: { name, subfolder, type } };
  }

  private queue(request: RecordedRequest): Answer {
    const body = json(request) as { prompt?: Workflow; client_id?: string };
    if (!body.prompt) {
      return {
        status: 400,
        body: {
          error: { type: 'no_prompt', message: 'No prompt provided', details: 'No prompt provided', extra_info: {} },
          node_errors: {},
        },
      };
    }
    const invalid = this.validate(body.prompt);
    if (invalid) return { status: 400, body: invalid };
    const id = randomUUID();
    this.prompts.set(id, body.prompt);
    this.pending.push(id);
    if (Number.isFinite(this.runMs)) setTimeout(() => void this.run(id, body.prompt!), this.runMs);
    return { status: 200, body: { prompt_id: id, number: this.counter++, node_errors: {} } };
  }

  /** ComfyUI's validate_prompt, for the core nodes: the error body of a 400, or undefined. */
  private validate(prompt: Workflow): unknown {
    for (const [id, node] of Object.entries(prompt)) {
      if (!node.class_type || !CORE_NODES.has(node.class_type)) {
        const message = `Cannot execute because node ${node.class_type ?? '?'} does not exist.`;
        return {
          error: { type: 'invalid_prompt', message, details: `Node ID '#${id}'`, extra_info: {} },
          node_errors: {},
        };
      }
    }
    if (!Object.values(prompt).some((node) => node.class_type === 'SaveImage' || node.class_type === 'PreviewImage')) {
      return {
        error: { type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '', extra_info: {} },
        node_errors: {},
      };
    }
    const nodeErrors: Record<string, unknown> = {};
    const refuse = (id: string, type: string, message: string, details: string) => {
      nodeErrors[id] = {
        errors: [{ type, message, details, extra_info: {} }],
        dependent_outputs: [],
        class_type: prompt[id].class_type,
      };
    };
    for (const [id, node] of Object.entries(prompt)) {
      const inputs = node.inputs ?? {};
      if (
        (node.class_type === 'LoadImage' || node.class_type === 'LoadImageMask') &&
        !this.files.has(`input/${String(inputs.image)}`)
      ) {
        refuse(
          id,
          'custom_validation_failed',
          'Custom validation failed for node',
          `image - Invalid image file: ${String(inputs.image)}`,
        );
      }
      if (node.class_type === 'CheckpointLoaderSimple' && !this.checkpoints.includes(String(inputs.ckpt_name))) {
        refuse(
          id,
          'value_not_in_list',
          'Value not in list',
          `ckpt_name: '${String(inputs.ckpt_name)}' not in ${JSON.stringify(this.checkpoints)}`,
        );
      }
      if (node.class_type === 'KSampler') {
        if (!Number.isInteger(inputs.seed) || (inputs.seed as number) < 0)
          refuse(id, 'value_smaller_than_min', 'Value 0 smaller than min of 0', `seed: ${String(inputs.seed)}`);
        if (!Number.isInteger(inputs.steps) || (inputs.steps as number) < 1)
          refuse(
            id,
            'invalid_input_type',
            'Failed to convert an input value to a INT value',
            `steps, ${String(inputs.steps)}`,
          );
        const denoise = inputs.denoise as number;
        if (typeof denoise !== 'number' || denoise < 0 || denoise > 1)
          refuse(id, 'value_bigger_than_max', 'Value bigger than max of 1.0', `denoise: ${String(denoise)}`);
      }
    }
    if (Object.keys(nodeErrors).length === 0) return undefined;
    return {
      error: {
        type: 'prompt_outputs_failed_validation',
        message: 'Prompt outputs failed validation',
        details: '',
        extra_info: {},
      },
      node_errors: nodeErrors,
    };
  }

  private async run(id: string, prompt: Workflow): Promise<void> {
    if (!this.pending.includes(id)) return; // deleted from the queue
    // Like ComfyUI's task_done, the prompt leaves the queue only as its history entry is written.
    const done = (entry: unknown) => {
      if (this.pending.includes(id)) this.pending.splice(this.pending.indexOf(id), 1);
      this.history.set(id, entry);
    };
    const messages: unknown[] = [
      ['execution_start', { prompt_id: id, timestamp: Date.now() }],
      ['execution_cached', { nodes: [], prompt_id: id, timestamp: Date.now() }],
    ];
    if (this.executionError) {
      const { nodeId, message, type = 'RuntimeError' } = this.executionError;
      this.executionError = undefined;
      messages.push([
        'execution_error',
        {
          prompt_id: id,
          node_id: nodeId,
          node_type: prompt[nodeId]?.class_type,
          executed: [],
          exception_message: message,
          exception_type: type,
          traceback: [],
          current_inputs: {},
          current_outputs: {},
        },
      ]);
      done({
        prompt: [0, id, prompt, {}, []],
        outputs: {},
        status: { status_str: 'error', completed: false, messages },
      });
      return;
    }
    const byClass = (name: string) => Object.entries(prompt).filter(([, node]) => node.class_type === name);
    const [, sampler] = byClass('KSampler')[0];
    const positive = prompt[(sampler.inputs!.positive as [string, number])[0]].inputs!.text as string;
    const loadImage = byClass('LoadImage')[0][1];
    const image = await decode(this.files.get(`input/${String(loadImage.inputs!.image)}`)!, 4);
    const maskNode = byClass('LoadImageMask')[0]?.[1];
    let paintAt: (pixel: number) => number = (pixel) => 1 - image.data[pixel * 4 + 3] / 255; // LoadImage: MASK = 1 - alpha
    if (maskNode) {
      const mask = await decode(this.files.get(`input/${String(maskNode.inputs!.image)}`)!, 4, image);
      const channel = { red: 0, green: 1, blue: 2, alpha: 3 }[String(maskNode.inputs!.channel)] ?? 0;
      paintAt = (pixel) => (channel === 3 ? 1 - mask.data[pixel * 4 + 3] / 255 : mask.data[pixel * 4 + channel] / 255);
    }
    const png = await paint(image, paintAt, positive, sampler.inputs!.denoise as number);
    const [saveId, save] = byClass('SaveImage')[0];
    const filename = `${String(save.inputs!.filename_prefix ?? 'ComfyUI')}_${String(this.outputs.size + 1).padStart(5, '0')}_.png`;
    this.outputs.set(filename, png);
    messages.push(['execution_success', { prompt_id: id, timestamp: Date.now() }]);
    done({
      prompt: [0, id, prompt, {}, [saveId]],
      outputs: { [saveId]: { images: [{ filename, subfolder: '', type: 'output' }] } },
      status: { status_str: 'success', completed: true, messages },
      meta: { [saveId]: { node_id: saveId, display_node: saveId, parent_node: null, real_node_id: saveId } },
    });
  }

  private view(request: RecordedRequest): Answer {
    const filename = request.query.get('filename') ?? '';
    if (filename.startsWith('/') || filename.includes('..')) return { status: 400 };
    const type = request.query.get('type') ?? 'output';
    const file = type === 'output' ? this.outputs.get(filename) : this.files.get(`${type}/${filename}`);
    if (!file) return { status: 404 };
    const etag = createHash('sha1').update(file).digest('hex');
    return {
      status: 200,
      body: file,
      headers: { 'content-type': 'image/png', 'content-disposition': `filename="${filename}"`, etag },
    };
  }
}
