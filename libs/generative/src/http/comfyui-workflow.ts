import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { locateShippedFolder } from '@app/common';

/**
 * A ComfyUI workflow in API format (`{"<node id>": {class_type, inputs}}`) with placeholders: a string that is the
 * whole value (`"{{seed}}"`) becomes a value of the right JSON type; inside a longer string it is replaced as text.
 */
export type Workflow = Record<string, { class_type: string; inputs: Record<string, unknown>; _meta?: unknown }>;

export const WORKFLOW_PLACEHOLDERS = [
  'image',
  'mask',
  'prompt',
  'negative_prompt',
  'seed',
  'steps',
  'denoise',
  'checkpoint',
  'width',
  'height',
  'reference',
] as const;
export type WorkflowPlaceholder = (typeof WORKFLOW_PLACEHOLDERS)[number];
/** What every workflow must take for the three jobs to mean anything. */
const REQUIRED: WorkflowPlaceholder[] = ['image', 'mask', 'prompt', 'seed', 'denoise'];

const PLACEHOLDER = /\{\{([a-z_]+)\}\}/g;

/** The workflow that ships with the service (libs/generative/workflows/comfyui-inpaint.json). */
export function defaultWorkflowPath(): string {
  return join(locateShippedFolder('libs/generative/workflows', __dirname, 'ComfyUI workflows'), 'comfyui-inpaint.json');
}

/**
 * The workflow at `path`, checked: JSON in API format with the required placeholders and no unknown one.
 * @throws Error naming the file and what is wrong (at startup, so a bad COMFYUI_WORKFLOW stops the service).
 */
export function loadWorkflow(path: string): { workflow: Workflow; placeholders: Set<WorkflowPlaceholder> } {
  const problem = (what: string) => new Error(`COMFYUI_WORKFLOW ${path}: ${what}`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw problem(`cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let workflow: unknown;
  try {
    workflow = JSON.parse(text);
  } catch (error) {
    throw problem(`is not JSON (${(error as Error).message})`);
  }
  if (workflow === null || typeof workflow !== 'object' || Array.isArray(workflow)) {
    throw problem('is not a workflow in API format (an object of nodes; export it with "Save (API)")');
  }
  for (const [id, node] of Object.entries(workflow)) {
    const valid =
      node !== null && typeof node === 'object' && typeof (node as { class_type?: unknown }).class_type === 'string';
    if (!valid || typeof (node as { inputs?: unknown }).inputs !== 'object') {
      throw problem(`node "${id}" has no class_type and inputs: is it the API format (export with "Save (API)")?`);
    }
  }
  const found = new Set<string>([...text.matchAll(PLACEHOLDER)].map((match) => match[1]));
  const unknown = [...found].filter((name) => !(WORKFLOW_PLACEHOLDERS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw problem(
      `unknown placeholder ${unknown.map((name) => `{{${name}}}`).join(', ')} (known: ${WORKFLOW_PLACEHOLDERS.join(', ')})`,
    );
  }
  const missing = REQUIRED.filter((name) => !found.has(name));
  if (missing.length > 0) throw problem(`has no ${missing.map((name) => `"{{${name}}}"`).join(', ')} placeholder`);
  return { workflow: workflow as Workflow, placeholders: found as Set<WorkflowPlaceholder> };
}

/** A copy of the workflow with its placeholders replaced by `values` (absent ones: an empty string). */
export function fillWorkflow(
  workflow: Workflow,
  values: Partial<Record<WorkflowPlaceholder, string | number>>,
): Workflow {
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const whole = /^\{\{([a-z_]+)\}\}$/.exec(value);
      if (whole) return values[whole[1] as WorkflowPlaceholder] ?? '';
      return value.replace(PLACEHOLDER, (_, name: string) => String(values[name as WorkflowPlaceholder] ?? ''));
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, fill(inner)]));
    }
    return value;
  };
  return fill(workflow) as Workflow;
}
