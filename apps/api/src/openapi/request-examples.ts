import type { OpenAPIObject, ParameterObject, RequestBodyObject, SchemaObject } from '@nestjs/swagger';

/** A path or query parameter's example value, and why it names something that exists. */
export interface ParameterExample {
  value: string | number;
  summary: string;
}

/** What trying an operation in Swagger UI sends: its parameters, and a JSON body or the fields of an upload. */
export interface RequestExample {
  parameters?: Record<string, ParameterExample>;
  body?: { summary: string; value: unknown };
  /** multipart/form-data: the `data` field, and the sample image to choose as `file`. */
  upload?: { data: unknown; file: string };
}

/** The cancellation examples' task: one of the examples above, which has ended by then on a fresh install. */
const CANCEL_SUMMARY = 'The task of the example above: cancelled if it still runs, else 409 TASK_ENDED';

/** The examples' example name in the document (Swagger UI shows the summary beside it). */
export const EXAMPLE_NAME = 'try-it';

/**
 * The request example of every operation that takes a body or a required parameter, by operation id. Each one
 * succeeds on a fresh install (embedded mode, no network) when the operations are tried in the document's order:
 * images are the service's own samples (`sampleUrl`, read from disk); ids are those a fresh install hands out (the
 * first start's own admin key is key 1, so the key the example creates is 2; batch and async tasks share one
 * sequence, the batch example coming first).
 */
export function requestExamples(baseUrl: string, sampleUrl: (name: string) => string): Record<string, RequestExample> {
  return {
    Samples_download: { parameters: { name: { value: 'mug.jpg', summary: 'A sample image' } } },
    Keys_create: {
      body: {
        summary: 'A key for a pipeline that edits images and uses storages, with 10,000 calls',
        value: { name: 'catalogue pipeline', scopes: ['image_editing', 'storage'], quota: 10000 },
      },
    },
    Keys_revoke: {
      parameters: {
        id: {
          value: 2,
          summary:
            'The key made by the example above; key 1 is the admin key the first start made (without ADMIN_API_KEY)',
        },
      },
    },
    Keys_update: {
      parameters: { id: { value: 2, summary: 'The key made by the example above' } },
      body: {
        summary: 'Let the key create scenes too',
        value: { scopes: ['image_editing', 'image_generation', 'storage'] },
      },
    },
    Storage_create: {
      body: {
        summary: "A web folder on the service's own sample images",
        value: { name: 'samples', type: 'web_folder', parameters: { base_url: sampleUrl('') } },
      },
    },
    Storage_get: { parameters: { storage_id: storageOne() } },
    Storage_update: {
      parameters: { storage_id: storageOne() },
      body: { summary: 'Rename the storage', value: { name: 'sample-images' } },
    },
    Storage_remove: { parameters: { storage_id: storageOne() } },
    Scene_create: {
      body: {
        summary: 'Two scenes of the sample bottle on white marble in soft warm light',
        value: {
          object: { image_url: sampleUrl('bottle.png'), scale: 0.6, position: { x: 0.5, y: 0.45 } },
          scene: { prompt: 'white marble table, soft warm light', aspect_ratio: '4:5' },
          output: { number_of_images: 2, format: 'webp' },
        },
      },
    },
    ImageEdit_edit: {
      body: {
        summary: 'A square WebP thumbnail of a sample, a little livelier',
        value: {
          input: sampleUrl('mug.jpg'),
          operations: {
            resizing: { width: 400, height: 400, fit: 'crop' },
            adjustments: { contrast: 10, saturation: 15, sharpness: 20 },
          },
          output: { format: 'webp' },
        },
      },
    },
    ImageEdit_upload: {
      upload: {
        data: {
          operations: {
            background: { color: '#f4efe6' },
            padding: '40px',
            resizing: { width: 600, height: 600, fit: 'canvas' },
          },
          output: { format: 'png' },
        },
        file: 'bottle.png',
      },
    },
    Batch_createBatch: {
      body: {
        summary: 'Three samples on 300 x 300 white canvases (JPEG, the batch default)',
        value: {
          input: [sampleUrl('mug.jpg'), sampleUrl('plant.jpg'), sampleUrl('bottle.png')],
          operations: { resizing: { width: 300, height: 300, fit: 'canvas' } },
        },
      },
    },
    Batch_getBatch: { parameters: { id: { value: 1, summary: 'The task of the batch example above' } } },
    Batch_cancelBatch: { parameters: { id: { value: 1, summary: CANCEL_SUMMARY } } },
    Batch_createAsync: {
      body: {
        summary: 'One sample, cropped to 256 x 256 and brightened, as PNG',
        value: {
          input: sampleUrl('plant.jpg'),
          operations: { resizing: { width: 256, height: 256 }, adjustments: { exposure: 10 } },
          output: { format: 'png' },
        },
      },
    },
    Batch_getAsync: {
      parameters: { id: { value: 2, summary: 'The task of the async example above (after the batch example: 1)' } },
    },
    Batch_cancelAsync: { parameters: { id: { value: 2, summary: CANCEL_SUMMARY } } },
    Tasks_summary: { parameters: { id: { value: 1, summary: 'The task of the batch example' } } },
    Tasks_cancel: { parameters: { id: { value: 1, summary: CANCEL_SUMMARY } } },
    Tasks_results: { parameters: { id: { value: 1, summary: 'The task of the batch example' } } },
    Tasks_errors: { parameters: { id: { value: 1, summary: 'The task of the batch example' } } },
    Usage_ofKey: { parameters: { id: { value: 2, summary: 'The key made by the example of POST /v1/keys' } } },
    Temporary_download: {
      parameters: {
        name: {
          value: 'REPLACE-with-the-last-segment-of-a-tmp_url-1.webp',
          summary: `The last segment of a result's tmp_url (${baseUrl}/tmp/<name>): the name is random`,
        },
      },
    },
  };

  function storageOne(): ParameterExample {
    return { value: 1, summary: 'The storage made by the example of POST /v1/storage/storages' };
  }
}

/**
 * Writes `examples` into `document`: each parameter's `examples`, each JSON body's `examples`, an upload's `data`
 * field example and, in its `file` description, the sample to choose.
 * @throws Error when an operation that takes a body or a required parameter has no example, or an example names an
 * operation or parameter the document does not have: the document is never published with an example missing.
 */
export function applyRequestExamples(document: OpenAPIObject, examples: Record<string, RequestExample>): void {
  const unused = new Set(Object.keys(examples));
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = item[method];
      if (!operation) continue;
      const id = operation.operationId ?? `${method} ${path}`;
      const example = examples[id];
      unused.delete(id);
      const where = `OpenAPI example of ${id} (${method.toUpperCase()} ${path})`;
      const parameters = (operation.parameters ?? []) as ParameterObject[];
      const named = new Set(Object.keys(example?.parameters ?? {}));
      for (const parameter of parameters) {
        const value = example?.parameters?.[parameter.name];
        named.delete(parameter.name);
        if (value) parameter.examples = { [EXAMPLE_NAME]: value };
        else if (parameter.required) throw new Error(`${where}: none for parameter ${parameter.name}`);
      }
      if (named.size > 0) throw new Error(`${where}: no parameter ${[...named].join(', ')}`);
      const body = operation.requestBody as RequestBodyObject | undefined;
      if (!body) {
        if (example?.body || example?.upload) throw new Error(`${where}: the operation takes no body`);
        continue;
      }
      const json = body.content['application/json'];
      const form = body.content['multipart/form-data'];
      if (json && example?.body) json.examples = { [EXAMPLE_NAME]: example.body };
      else if (form && example?.upload) applyUpload(form.schema as SchemaObject, example.upload);
      else throw new Error(`${where}: none for its ${json ? 'JSON' : 'multipart'} body`);
    }
  }
  if (unused.size > 0) throw new Error(`OpenAPI examples name no operation: ${[...unused].join(', ')}`);
}

function applyUpload(schema: SchemaObject, upload: NonNullable<RequestExample['upload']>): void {
  const properties = schema.properties as Record<string, SchemaObject>;
  properties.data = { ...properties.data, example: JSON.stringify(upload.data) };
  properties.file = {
    ...properties.file,
    description:
      `${properties.file.description ?? ''} To try: save the sample ${upload.file} (GET /samples/${upload.file}) and choose it.`.trim(),
  };
}
