import { type Answer, FakeServer, type RecordedRequest, decode, multipart, paint } from './fake-server';

/**
 * A fake OpenAI-compatible images API (docs/generator-protocols.md, C): `POST /v1/images/edits` multipart (`image` or
 * `image[]`, `mask` with alpha and the image's size, `prompt` required, `size` per model, `response_format` only for
 * dall-e-2), Bearer auth, `{error: {message, type, param, code}}` errors. It "edits" the first image, resized to
 * `size`, to the prompt's colour where the mask is transparent (the whole image without a mask), and answers b64_json
 * (or a URL on this server for dall-e-2's default and when `answerUrls` is set).
 */

const GPT_SIZES = ['1024x1024', '1536x1024', '1024x1536', 'auto'];
const DALL_E_2_SIZES = ['256x256', '512x512', '1024x1024'];

function openAiError(
  status: number,
  message: string,
  param: string | null,
  code: string | null,
  type = 'invalid_request_error',
): Answer {
  return { status, body: { error: { message, type, param, code } }, headers: { 'x-request-id': 'req_fake0001' } };
}

export interface OpenAiFakeOptions {
  apiKey?: string;
  /** Echo the whole key in a 401 (a careless compatible server), to prove the client never repeats it. */
  echoKey?: boolean;
}

export class OpenAiFake extends FakeServer {
  readonly apiKey: string;
  readonly echoKey: boolean;
  answerUrls = false;
  private readonly files = new Map<string, Buffer>();

  constructor(options: OpenAiFakeOptions = {}) {
    super();
    this.apiKey = options.apiKey ?? 'sk-test-0123456789abcdefXYZ';
    this.echoKey = options.echoKey ?? false;
  }

  protected async handle(request: RecordedRequest): Promise<Answer> {
    if (request.method === 'GET' && request.path.startsWith('/files/')) {
      const file = this.files.get(request.path.slice('/files/'.length));
      return file ? { status: 200, body: file, headers: { 'content-type': 'image/png' } } : { status: 404 };
    }
    const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (key !== this.apiKey) {
      const shown = key === undefined ? '' : this.echoKey ? key : `${key.slice(0, 3)}*****${key.slice(-4)}`;
      const message = key === undefined ? "You didn't provide an API key." : `Incorrect API key provided: ${shown}.`;
      return openAiError(401, message, null, key === undefined ? null : 'invalid_api_key');
    }
    if (request.method === 'POST' && request.path === '/v1/images/edits') return this.edit(request);
    return openAiError(404, `Invalid URL (${request.method} ${request.path})`, null, null);
  }

  private async edit(request: RecordedRequest): Promise<Answer> {
    if (!String(request.headers['content-type']).startsWith('multipart/form-data')) {
      return openAiError(400, 'Invalid Content-Type header, expected multipart/form-data.', null, null);
    }
    const form = await multipart(request);
    const file = form.get('image') ?? form.get('image[]');
    if (!(file instanceof File))
      return openAiError(400, "Missing required parameter: 'image'.", 'image', 'missing_required_parameter');
    const prompt = form.get('prompt');
    if (typeof prompt !== 'string' || prompt === '') {
      return openAiError(400, "Missing required parameter: 'prompt'.", 'prompt', 'missing_required_parameter');
    }
    const model = String(form.get('model') ?? 'gpt-image-1.5');
    const size = String(form.get('size') ?? '1024x1024');
    const sizes = model === 'dall-e-2' ? DALL_E_2_SIZES : model === 'gpt-image-2' ? undefined : GPT_SIZES;
    if (sizes ? !sizes.includes(size) : !/^\d+x\d+$/.test(size)) {
      return openAiError(
        400,
        `Invalid value: '${size}'. Supported values are: ${(sizes ?? ['WxH']).join(', ')}.`,
        'size',
        'invalid_value',
      );
    }
    const format = form.get('response_format');
    if (format !== null && model !== 'dall-e-2') {
      return openAiError(400, `Unknown parameter: 'response_format'.`, 'response_format', 'unknown_parameter');
    }
    const original = await decode(Buffer.from(await file.arrayBuffer()), 4);
    const [width, height] = size === 'auto' ? [original.width, original.height] : size.split('x').map(Number);
    const image = await decode(Buffer.from(await file.arrayBuffer()), 3, { width, height });
    const maskFile = form.get('mask');
    let paintAt = (_pixel: number) => 1;
    if (maskFile instanceof File) {
      const bytes = Buffer.from(await maskFile.arrayBuffer());
      const mask = await decode(bytes, 4);
      if (mask.width !== original.width || mask.height !== original.height) {
        return openAiError(
          400,
          'Invalid mask image: the mask and the image must have the same dimensions.',
          'mask',
          'invalid_image',
        );
      }
      const scaled = await decode(bytes, 4, { width, height });
      let transparent = false;
      for (let pixel = 0; pixel < mask.width * mask.height && !transparent; pixel += 1)
        transparent = mask.data[pixel * 4 + 3] < 255;
      if (!transparent)
        return openAiError(
          400,
          'Invalid mask image: the mask has no transparent area to edit.',
          'mask',
          'invalid_image',
        );
      paintAt = (pixel) => (scaled.data[pixel * 4 + 3] === 0 ? 1 : 0);
    }
    const png = await paint(image, paintAt, prompt, 1);
    const created = Math.floor(Date.now() / 1000);
    if ((model === 'dall-e-2' && format !== 'b64_json') || this.answerUrls) {
      const name = `img-${this.files.size + 1}.png`;
      this.files.set(name, png);
      return { status: 200, body: { created, data: [{ url: `${this.url}/files/${name}` }] } };
    }
    return {
      status: 200,
      body: {
        created,
        data: [{ b64_json: png.toString('base64') }],
        output_format: 'png',
        size,
        usage: { total_tokens: 1, input_tokens: 1, output_tokens: 0 },
      },
      headers: { 'x-request-id': 'req_fake0002' },
    };
  }
}
