import { availableParallelism } from 'node:os';
import type { Reader } from './config-reader';

/**
 * Which generator the scene, outpaint and style-transfer jobs go to (libs/generative: backend.factory.ts).
 * `local`: the deterministic CPU backend that ships with the service. The others are HTTP adapters to generators
 * a team runs itself (docs/generator-protocols.md). `none`: no generative work at all (scene creation, outpaint and
 * style transfer answer 501).
 */
export const GENERATIVE_BACKENDS = ['local', 'comfyui', 'automatic1111', 'openai', 'none'] as const;
export type GenerativeBackendName = (typeof GENERATIVE_BACKENDS)[number];

/** The contract's `scene.model` values; each may name a model (checkpoint) of the configured generator. */
export const SCENE_MODELS = ['v1', 'v2-beta', 'v2'] as const;
export type SceneModel = (typeof SCENE_MODELS)[number];

export interface GenerativeConfig {
  backend: GenerativeBackendName;
  /** Base URL of the generator (absent for `local`). Operator configuration: private addresses are allowed. */
  url?: string;
  /** Bearer key of the generator (OpenAI-compatible APIs; an Automatic1111 started with --api-auth takes `user:pass`). Never logged. */
  apiKey?: string;
  /** The generator's model (checkpoint) for each `scene.model`; absent: the generator's default. */
  models: Partial<Record<SceneModel, string>>;
  /** ComfyUI: path of the workflow (API format) with placeholders; absent: the one that ships with the service. */
  comfyWorkflow?: string;
  /** Longest one generator call may take (queue, run and fetch), in milliseconds. */
  timeoutMs: number;
  /** Further attempts after a failure that may pass (a refused connection, 429, 5xx); 0 to 5. */
  retries: number;
  /** How often a queued ComfyUI prompt is polled, in milliseconds. */
  pollIntervalMs: number;
  /** Most bytes one generator answer may have (read as it arrives); more is a 502 naming the generator. */
  maxResponseBytes: number;
  /** Scenes one process creates at the same time; more wait in line. */
  sceneConcurrency: number;
  /** Scenes that may wait in line before new ones are refused with 503 SCENE_BUSY. */
  sceneQueueLimit: number;
  /** Longest one scene request may take, its images together, in milliseconds: 504 SCENE_TIMEOUT after it. */
  sceneTimeoutMs: number;
}

/** The generative settings (docs/configuration.md, "Scenes and generators"). */
export function readGenerative(read: Reader): GenerativeConfig {
  const backend = read.oneOf('GENERATIVE_BACKEND', GENERATIVE_BACKENDS, 'local');
  const url = read.url('GENERATIVE_URL', ['http:', 'https:']);
  if (backend !== 'local' && backend !== 'none' && url === undefined && read.string('GENERATIVE_URL') === undefined) {
    read.problem('GENERATIVE_URL', `is required with GENERATIVE_BACKEND=${backend}: the generator's base URL`);
  }
  const models: Partial<Record<SceneModel, string>> = {};
  for (const model of SCENE_MODELS) {
    const value = read.string(`GENERATIVE_MODEL_${model.replace('-', '_').toUpperCase()}`);
    if (value !== undefined) models[model] = value;
  }
  return {
    backend,
    url: url?.replace(/\/+$/, ''),
    apiKey: read.string('GENERATIVE_API_KEY'),
    models,
    comfyWorkflow: read.string('COMFYUI_WORKFLOW'),
    timeoutMs: read.integer('GENERATIVE_TIMEOUT_MS', 300_000, 1_000, 3_600_000),
    retries: read.integer('GENERATIVE_RETRIES', 2, 0, 5),
    pollIntervalMs: read.integer('GENERATIVE_POLL_MS', 500, 10, 60_000),
    maxResponseBytes: read.integer('GENERATIVE_MAX_RESPONSE_BYTES', 67_108_864, 1024, 1_073_741_824),
    sceneConcurrency: read.integer('SCENE_CONCURRENCY', Math.max(1, Math.floor(availableParallelism() / 2)), 1, 64),
    sceneQueueLimit: read.integer('SCENE_QUEUE_LIMIT', 16, 0, 10_000),
    sceneTimeoutMs: read.integer('SCENE_TIMEOUT_MS', 600_000, 1_000, 3_600_000),
  };
}
