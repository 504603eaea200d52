import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { withSpan } from '../tracing/spans';

/**
 * Every Prometheus metric of an Atelier process, in one registry per process (the API and each worker scrape
 * their own). Listed in docs/operations.md ("Metrics"); names start with `atelier_`, times are in seconds.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'atelier_' });

/** Seconds buckets of HTTP requests and task items: 5 ms to 2 min. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export const httpRequestDuration = new Histogram({
  name: 'atelier_http_request_duration_seconds',
  help: 'HTTP requests answered by the API, by method, route pattern (unmatched: "unknown") and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: DURATION_BUCKETS,
  registers: [metricsRegistry],
});

/**
 * The stages of one edit: `read` (download, storage object), `probe` (the header), `pixel_wait` (in line for the
 * pixel gate), `pixels` (decode, operations, encode, models included), `write` (the result to its destination).
 * `encode` is part of `pixels` (so a sum over every stage counts it twice): the last libvips pass, which writes the
 * output's bytes. libvips streams an image through its operations, so for a plain resize that pass is the whole
 * decode, resize and encode; after a step that holds its pixels in memory (a model, a kernel), it is what follows
 * the last such step.
 */
export type EditStage = 'read' | 'probe' | 'pixel_wait' | 'pixels' | 'encode' | 'write';

export const editStageDuration = new Histogram({
  name: 'atelier_edit_stage_seconds',
  help: 'Time of each stage of an edit (read, probe, pixel_wait, pixels and within it encode, write), failed ones included.',
  labelNames: ['stage'] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [metricsRegistry],
});

/**
 * Runs `work`, timing it as the edit stage `stage` whether it succeeds or fails; with tracing on, inside the span
 * `edit.<stage>` (docs/operations.md, "Tracing").
 */
export async function timedStage<T>(stage: EditStage, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await withSpan(`edit.${stage}`, {}, work);
  } finally {
    editStageDuration.observe({ stage }, (performance.now() - started) / 1000);
  }
}

/** The gates of one process: `pixels` and `inputs` (EditAdmission), `scene` (SceneAdmission). */
export type GateName = 'pixels' | 'inputs' | 'scene';

export const gateInFlight = new Gauge({
  name: 'atelier_gate_in_flight',
  help: 'Requests holding a permit of an admission gate now, by gate (pixels, inputs, scene).',
  labelNames: ['gate'] as const,
  registers: [metricsRegistry],
});

export const gateQueued = new Gauge({
  name: 'atelier_gate_queued',
  help: 'Requests waiting in line at an admission gate now, by gate (pixels, inputs, scene).',
  labelNames: ['gate'] as const,
  registers: [metricsRegistry],
});

export const gateRefusals = new Counter({
  name: 'atelier_gate_refusals_total',
  help: 'Requests an admission gate refused with 503 (EDIT_BUSY, SCENE_BUSY), by gate (pixels, inputs, scene).',
  labelNames: ['gate'] as const,
  registers: [metricsRegistry],
});

export const rateLimitRefusals = new Counter({
  name: 'atelier_rate_limit_refusals_total',
  help: 'Requests refused with 429 by the per-key rate limit.',
  registers: [metricsRegistry],
});

export const quotaRefusals = new Counter({
  name: 'atelier_quota_refusals_total',
  help: 'Requests refused with 402 because the key has spent its quota.',
  registers: [metricsRegistry],
});

export const tasksCreated = new Counter({
  name: 'atelier_tasks_created_total',
  help: 'Tasks created, by kind (async, batch).',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

export const tasksEnded = new Counter({
  name: 'atelier_tasks_ended_total',
  help: 'Tasks that ended, by final status (DONE, ERROR, CANCELLED), counted by the process that ended each.',
  labelNames: ['status'] as const,
  registers: [metricsRegistry],
});

export const taskItems = new Counter({
  name: 'atelier_task_items_total',
  help: 'Task item runs ended, by status: DONE, FAILED, or retry (a transient failure queued again).',
  labelNames: ['status'] as const,
  registers: [metricsRegistry],
});

export const taskItemDuration = new Histogram({
  name: 'atelier_task_item_duration_seconds',
  help: 'Time of one task item run (read, edit, write), by status: DONE, FAILED or retry.',
  labelNames: ['status'] as const,
  buckets: DURATION_BUCKETS,
  registers: [metricsRegistry],
});

export const webhookDeliveries = new Counter({
  name: 'atelier_webhook_deliveries_total',
  help: 'Webhook delivery attempts of ended tasks, by outcome: delivered, retry (a transient failure, tried again later) or failed (given up).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const webhookDeliveryDuration = new Histogram({
  name: 'atelier_webhook_delivery_seconds',
  help: 'Time of one webhook delivery attempt (body built, signed, sent, answered), by outcome.',
  labelNames: ['outcome'] as const,
  buckets: DURATION_BUCKETS,
  registers: [metricsRegistry],
});

/**
 * Task work the reconciler queued again because the queue had lost it (TaskReconciler): `expand` (a task's listing
 * step: one not listed to its end, or one whose items all ended before it did), `item` (one per item), `webhook`.
 */
export type ReconciledWork = 'expand' | 'item' | 'webhook';

export const taskReconciled = new Counter({
  name: 'atelier_task_reconciled_total',
  help: 'Task work queued again because the queue had lost it (Redis flushed or restarted empty), by what: expand, item, webhook.',
  labelNames: ['what'] as const,
  registers: [metricsRegistry],
});

/** Seconds buckets of model inference and scene stages: 1 ms to 2 min. */
const WORK_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export const modelInferenceDuration = new Histogram({
  name: 'atelier_model_inference_seconds',
  help: "Time of one inference on a model's worker thread (waiting behind others included; loading not), by model and outcome (ok, error).",
  labelNames: ['model', 'outcome'] as const,
  buckets: WORK_BUCKETS,
  registers: [metricsRegistry],
});

export const modelLoadDuration = new Histogram({
  name: 'atelier_model_load_seconds',
  help: 'Time to verify, load and warm up a model at its first use, by model and outcome (loaded, failed).',
  labelNames: ['model', 'outcome'] as const,
  buckets: WORK_BUCKETS,
  registers: [metricsRegistry],
});

export const modelBusyRefusals = new Counter({
  name: 'atelier_model_busy_refusals_total',
  help: "Inferences refused with 503 MODEL_BUSY because the model's queue was full, by model.",
  labelNames: ['model'] as const,
  registers: [metricsRegistry],
});

/**
 * The stages of a scene (POST /v1/scene/create), as its `profiling` reports them: fetch, queue (the scene gate),
 * decode, cutout, place, template, generate (the generative backend), compose, encode, write.
 */
export const sceneStageDuration = new Histogram({
  name: 'atelier_scene_stage_seconds',
  help: 'Time of each stage of a scene that succeeded (fetch, queue, decode, cutout, place, template, generate, compose, encode, write).',
  labelNames: ['stage'] as const,
  buckets: WORK_BUCKETS,
  registers: [metricsRegistry],
});

/** What a task queue reports when scraped: its jobs by state, and the age of the oldest waiting job. */
export interface QueueSnapshot {
  jobs: Record<'waiting' | 'active' | 'delayed' | 'failed', number>;
  /** Seconds since the oldest waiting job was queued; 0 when none waits. */
  oldestWaitingSeconds: number;
}

/** The queue whose depth the scrape reads (BullMQ's, in a process that holds one); none: not exported. */
let queueSource: (() => Promise<QueueSnapshot>) | undefined;
let lastSnapshot: Promise<QueueSnapshot> | undefined;

/** Registers the task queue read at each scrape (one per process; a later call replaces it). */
export function setQueueSource(source: () => Promise<QueueSnapshot>): void {
  queueSource = source;
}

/** Unregisters `source` (a closing queue), unless another has replaced it since. */
export function clearQueueSource(source: () => Promise<QueueSnapshot>): void {
  if (queueSource === source) queueSource = undefined;
}

/** One read of the queue per scrape, shared by the two gauges; a failed read reports nothing. */
function snapshot(): Promise<QueueSnapshot | undefined> {
  if (!queueSource) return Promise.resolve(undefined);
  lastSnapshot ??= queueSource().finally(() => setTimeout(() => (lastSnapshot = undefined), 100));
  return lastSnapshot.catch(() => undefined);
}

export const queueJobs = new Gauge({
  name: 'atelier_queue_jobs',
  help: 'Jobs of the BullMQ task queue, by state (waiting, active, delayed, failed), read at each scrape.',
  labelNames: ['state'] as const,
  registers: [metricsRegistry],
  async collect() {
    const read = await snapshot();
    if (!read) return;
    for (const [state, count] of Object.entries(read.jobs)) this.set({ state }, count);
  },
});

export const queueOldestWaiting = new Gauge({
  name: 'atelier_queue_oldest_waiting_seconds',
  help: 'Age of the oldest waiting job of the BullMQ task queue (0: none waits), read at each scrape.',
  registers: [metricsRegistry],
  async collect() {
    const read = await snapshot();
    if (read) this.set(read.oldestWaitingSeconds);
  },
});

/** The content type of {@link metricsText}. */
export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;

/** The exposition text of this process's metrics. */
export function metricsText(): Promise<string> {
  return metricsRegistry.metrics();
}
