import { isIP } from 'node:net';
import { availableParallelism, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { Reader, type ConfigProblem, type Environment } from './config-reader';
import { HOST_PATTERN, parseAllowHosts, parseRoots } from './list-settings';
import { readGenerative, type GenerativeConfig } from './generative-config';
export type { TlsConfig } from './tls-config';
import { readTls, type TlsConfig } from './tls-config';
import { readTracing, type TracingConfig } from './tracing-config';
export { TRACE_SAMPLERS, type TraceSampler, type TracingConfig } from './tracing-config';
import { readVision, type VisionConfig } from './vision-config';
export {
  GENERATIVE_BACKENDS,
  SCENE_MODELS,
  type GenerativeBackendName,
  type GenerativeConfig,
  type SceneModel,
} from './generative-config';

export type { ConfigProblem, Environment } from './config-reader';
export {
  EXECUTION_PROVIDERS,
  SEGMENTATION_PROFILES,
  type ExecutionProvider,
  type ModelFileOverride,
  type SegmentationProfileName,
  type VisionConfig,
} from './vision-config';

/** Raised at start when the environment is invalid; lists every problem at once. */
export class ConfigError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p.variable}: ${p.message}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** `auto`: human-readable lines when standard output is a terminal, JSON lines otherwise. */
export type LogFormat = 'auto' | 'pretty' | 'json';
const LOG_FORMATS: readonly LogFormat[] = ['auto', 'pretty', 'json'];

/**
 * The validated, typed configuration of every Atelier process.
 * Built once by {@link loadConfig}; documented in docs/configuration.md.
 */
export class AppConfig {
  /** TCP port of the HTTP API. */
  readonly port: number;
  /** Interface the HTTP API binds to. */
  readonly host: string;
  /** Absolute base URL clients reach the service at, without a trailing slash. */
  readonly publicBaseUrl: string;
  /** Folder of the embedded database and of the service's other local files (absolute). */
  readonly dataDir: string;
  /** PostgreSQL connection URL; undefined means embedded SQLite under dataDir. */
  readonly databaseUrl?: string;
  /** Redis connection URL; undefined means embedded mode (in-memory counters, in-process tasks). */
  readonly redisUrl?: string;
  /** Prefix of every Redis key and queue this deployment uses. */
  readonly redisPrefix: string;
  /** Admin key of the default account accepted from configuration, if any. */
  readonly adminApiKey?: string;
  /** Hosts or CIDRs that downloads may reach although private or loopback. */
  readonly fetchAllowHosts: string[];
  /** Folders under which `local` storages may be connected (absolute, resolved); empty: the `local` type is off. */
  readonly localStorageRoots: string[];
  /** Default requests per second per API key. */
  readonly rateLimitPerSecond: number;
  /** Default requests per minute per API key. */
  readonly rateLimitPerMinute: number;
  /** Requests per second one client address may send, before authentication; 0: no limit. */
  readonly addressRateLimitPerSecond: number;
  /** Requests per minute one client address may send, before authentication; 0: no limit. */
  readonly addressRateLimitPerMinute: number;
  /** Requests answered 401 or 403 that one client address may cause per minute; 0: no limit. */
  readonly authFailureLimitPerMinute: number;
  /**
   * How long, in milliseconds, a process reuses an API key's principal or a storage's row it looked up, before
   * looking it up again; a change made through this process is seen at once, one made through another after at
   * most this long. 0: looked up for every request and item.
   */
  readonly lookupCacheMs: number;
  /** Largest accepted JSON request body, in bytes. */
  readonly maxJsonBodyBytes: number;
  /** Deepest nesting of objects and arrays a JSON body (or the upload's `data` part) may have; the body is 1. */
  readonly maxJsonDepth: number;
  /** Longest a client may take to send a request's headers, in milliseconds (then 408). */
  readonly headersTimeoutMs: number;
  /** Longest a client may take to send a whole request, headers and body, in milliseconds (then 408). */
  readonly requestTimeoutMs: number;
  /** Longest a request body may send nothing at all, in milliseconds (then 408); at most requestTimeoutMs. */
  readonly bodyIdleTimeoutMs: number;
  /** How long a rotated webhook secret goes on signing beside the new one, in milliseconds; 0: not at all. */
  readonly webhookSecretOverlapMs: number;
  /** Minimum level of the structured logs. */
  readonly logLevel: LogLevel;
  /** How log lines are written on standard output. */
  readonly logFormat: LogFormat;
  /** Port of the listener of its own (on HOST) that serves GET /metrics; 0: none. */
  readonly metricsPort: number;
  /** Bearer token that opens GET /metrics on the API port; undefined: /metrics is not served there (404). */
  readonly metricsToken?: string;
  /** OpenTelemetry tracing from the standard OTEL_* variables; undefined: off (nothing is exported). */
  readonly tracing?: TracingConfig;
  /** Whether X-Forwarded-* headers from a reverse proxy are trusted. */
  readonly trustProxy: boolean;
  /** Native HTTPS (TLS_CERT_FILE, TLS_KEY_FILE); undefined: plain HTTP. */
  readonly tls?: TlsConfig;
  /** Longest a whole download of a user URL may take, in milliseconds (redirects included). */
  readonly fetchTimeoutMs: number;
  /** Longest the TCP (and TLS) connection of a download may take to open, in milliseconds. */
  readonly fetchConnectTimeoutMs: number;
  /** Largest download of a user URL, in bytes. */
  readonly fetchMaxBytes: number;
  /** 32-byte AES-256-GCM key of storage credentials; undefined means the key file in dataDir. */
  readonly storageEncryptionKey?: Buffer;
  /** Earlier keys, still accepted for decryption so that a rotation re-encrypts with the current key. */
  readonly storagePreviousKeys: Buffer[];
  /** Longest the reachability check of a storage may take when it is created or changed, in milliseconds. */
  readonly storageCheckTimeoutMs: number;
  /** Pages one listing of a storage folder may request (a folder task's input). */
  readonly storageListMaxPages: number;
  /** Longest one listing of a storage folder may run, in milliseconds (checked before each page). */
  readonly storageListTimeoutMs: number;
  /** Largest answer to one listing page request of an S3-compatible store, in bytes. */
  readonly storageListPageMaxBytes: number;
  /** Items one folder task may record; its listing stops there and the task ends in ERROR once they are done. */
  readonly taskItemsMax: number;
  /** Lifetime of a file in the temporary bucket, in seconds. */
  readonly temporaryTtlSeconds: number;
  /** How often expired temporary files are deleted, in seconds. */
  readonly temporarySweepIntervalSeconds: number;
  /** Largest input image, in pixels (width x height), checked from the header before decoding. */
  readonly maxInputPixels: number;
  /** Images one process edits at the same time; more wait in line. */
  readonly editConcurrency: number;
  /** Edits that may wait in line per process before new ones are refused with 503. */
  readonly editQueueLimit: number;
  /** Memory the pixel work of one process may take at once, in bytes, as estimated from image headers. */
  readonly editMemoryBytes: number;
  /** Bytes of input images (downloads, storage objects, uploads) one process holds in memory at once. */
  readonly editInputBytes: number;
  /** Percentage (1..100) of each of those two budgets that one API key may hold. */
  readonly editKeySharePercent: number;
  /** Task items one process (a worker, or the API in embedded mode) edits at the same time. */
  readonly taskConcurrency: number;
  /** Runs of an item (or a task's listing) before a transient failure (network, storage 5xx) is final. */
  readonly taskAttempts: number;
  /** Items of one task handed to the queue at a time (docs/batch.md, "Scheduling"). */
  readonly taskOutstandingPerTask: number;
  /** Items of one account's tasks handed to the queue at a time: what keeps one account from filling it. */
  readonly taskOutstandingPerAccount: number;
  /**
   * Tasks of one account that have not ended (ACCEPTED, PROCESSING or PAUSED) beyond which a new batch or async task is
   * refused with 429: what bounds the work of one account's top-ups and cancellations.
   */
  readonly taskActivePerAccount: number;
  /** Delay before the first retry of a transient failure, in milliseconds; doubled for each later one. */
  readonly taskRetryDelayMs: number;
  /**
   * Write failures in a row of one output store (a storage, or the temporary bucket) after which its tasks are
   * PAUSED instead of retried item by item (docs/batch.md, "When the output store is down").
   */
  readonly taskStoreFailures: number;
  /** How often, in milliseconds, the store of a PAUSED task is probed (and its items look whether it resumed). */
  readonly taskStoreProbeMs: number;
  /** How long, in milliseconds, a task stays PAUSED before its waiting items end FAILED and it ends in ERROR. */
  readonly taskStorePauseMaxMs: number;
  /** How long a worker's hold on a job lasts without renewal: a killed worker's jobs run again after it. */
  readonly workerLockMs: number;
  /**
   * How often, in milliseconds, a worker checks the queue against the database and queues again the task work
   * Redis lost (TaskReconciler; docs/operations.md, "Backups"); 0: never.
   */
  readonly taskReconcileIntervalMs: number;
  /** S3-compatible temporary bucket (scaled mode); undefined means local disk under dataDir, served by the API. */
  readonly temporaryBucket?: TemporaryBucketConfig;
  /** The model runners of libs/vision: threads, queues, execution provider, model files. */
  readonly vision: VisionConfig;
  /** The generator of scenes, outpaint and style transfer (libs/generative), and the scene gate. */
  readonly generative: GenerativeConfig;

  constructor(values: Omit<AppConfig, 'databaseKind'>) {
    Object.assign(this, values);
  }

  get databaseKind(): 'sqlite' | 'postgres' {
    return this.databaseUrl ? 'postgres' : 'sqlite';
  }
}

/** Where the scaled mode keeps temporary results: an S3-compatible bucket handed out by presigned URLs. */
export interface TemporaryBucketConfig {
  bucket: string;
  /** Key prefix inside the bucket, without leading or trailing `/`; may be empty. */
  prefix: string;
  /** S3 endpoint the service connects to; undefined means AWS. */
  endpoint?: string;
  /** Endpoint written into presigned URLs when clients reach the store by another address. */
  publicEndpoint?: string;
  region: string;
  /** Both set, or neither (then the AWS SDK's default credential chain applies). */
  accessKey?: string;
  secretKey?: string;
}

function readTemporaryBucket(read: Reader): TemporaryBucketConfig | undefined {
  const location = read.url('TEMP_BUCKET', ['s3:']);
  if (location === undefined) return undefined;
  const url = new URL(location);
  const accessKey = read.string('TEMP_BUCKET_ACCESS_KEY');
  const secretKey = read.string('TEMP_BUCKET_SECRET_KEY');
  if ((accessKey === undefined) !== (secretKey === undefined)) {
    read.problem('TEMP_BUCKET_SECRET_KEY', 'TEMP_BUCKET_ACCESS_KEY and TEMP_BUCKET_SECRET_KEY go together');
  }
  return {
    bucket: url.hostname,
    prefix: decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, ''),
    endpoint: read.url('TEMP_BUCKET_ENDPOINT', ['http:', 'https:']),
    publicEndpoint: read.url('TEMP_BUCKET_PUBLIC_ENDPOINT', ['http:', 'https:']),
    region: read.string('TEMP_BUCKET_REGION', 'us-east-1'),
    accessKey,
    secretKey,
  };
}

/** The host part of the default public URL: wildcard binds are reached as localhost, IPv6 in brackets. */
function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return isIP(host) === 6 ? `[${host}]` : host;
}

const MIB = 1024 * 1024;

/**
 * Memory this process may use, in bytes: the container's (cgroup) limit when there is one, else the machine's.
 * The default memory budgets of edits are parts of it.
 */
function processMemory(): number {
  const limit = process.constrainedMemory?.() ?? 0;
  return limit > 0 ? Math.min(limit, totalmem()) : totalmem();
}

/**
 * Reads and validates the environment. Throws {@link ConfigError} listing every problem,
 * so that a bad deployment stops at start instead of failing later.
 */
export function loadConfig(env: Environment = process.env): AppConfig {
  const read = new Reader(env);
  const port = read.integer('PORT', 3000, 0, 65535);
  const host = read.string('HOST', '127.0.0.1');
  if (isIP(host) === 0 && !HOST_PATTERN.test(host))
    read.problem('HOST', `"${host}" is neither an IP address nor a host name`);
  const publicBaseUrl = read.url('PUBLIC_BASE_URL', ['http:', 'https:']);
  const adminApiKey = read.string('ADMIN_API_KEY');
  if (adminApiKey !== undefined && adminApiKey.length < 32) {
    read.problem('ADMIN_API_KEY', 'must be at least 32 characters long');
  }
  const taskConcurrency = read.integer('TASK_CONCURRENCY', Math.max(1, availableParallelism()), 1, 256);
  const redisPrefix = read.string('REDIS_PREFIX', 'atelier');
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(redisPrefix)) {
    read.problem('REDIS_PREFIX', 'must be 1 to 32 letters, digits, "_" or "-"');
  }
  const headersTimeoutMs = read.integer('HEADERS_TIMEOUT_MS', 20_000, 100, 600_000);
  const requestTimeoutMs = read.integer('REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    read.problem('HEADERS_TIMEOUT_MS', `must not be more than REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  }
  const bodyIdleTimeoutMs = read.integer('BODY_IDLE_TIMEOUT_MS', Math.min(30_000, requestTimeoutMs), 100, 3_600_000);
  if (bodyIdleTimeoutMs > requestTimeoutMs) {
    read.problem('BODY_IDLE_TIMEOUT_MS', `must not be more than REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  }
  const tls = readTls(read);
  const metricsPort = read.integer('METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== 0 && metricsPort === port) read.problem('METRICS_PORT', `must differ from PORT (${port})`);
  const metricsToken = read.string('METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16) {
    read.problem('METRICS_TOKEN', 'must be at least 16 characters long');
  }
  const fetchTimeoutMs = read.integer('FETCH_TIMEOUT_MS', 30_000, 100, 600_000);
  const workerLockMs = read.integer('WORKER_LOCK_MS', 30_000, 1_000, 3_600_000);
  const taskReconcileIntervalMs = read.integer(
    'TASK_RECONCILE_INTERVAL_MS',
    Math.max(60_000, fetchTimeoutMs + workerLockMs),
    0,
    86_400_000,
  );
  // Work is queued again once a pass found its job missing and a later one (an interval on) still does: a run under
  // way when its job was lost must have ended by then (its download, its lock), else it would run beside itself.
  if (taskReconcileIntervalMs > 0 && taskReconcileIntervalMs < fetchTimeoutMs + workerLockMs) {
    read.problem(
      'TASK_RECONCILE_INTERVAL_MS',
      `must be 0 (off) or at least FETCH_TIMEOUT_MS + WORKER_LOCK_MS (${fetchTimeoutMs + workerLockMs})`,
    );
  }
  const config = new AppConfig({
    port,
    host,
    tls,
    publicBaseUrl: (publicBaseUrl ?? `${tls ? 'https' : 'http'}://${displayHost(host)}:${port}`).replace(/\/+$/, ''),
    dataDir: resolve(read.string('DATA_DIR', './data')),
    databaseUrl: read.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: read.url('REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix,
    adminApiKey,
    fetchAllowHosts: parseAllowHosts(read, read.string('FETCH_ALLOW_HOSTS')),
    localStorageRoots: parseRoots(read, read.string('LOCAL_STORAGE_ROOTS')),
    rateLimitPerSecond: read.integer('RATE_LIMIT_PER_SECOND', 4, 1, 1_000_000),
    rateLimitPerMinute: read.integer('RATE_LIMIT_PER_MINUTE', 120, 1, 60_000_000),
    addressRateLimitPerSecond: read.integer('ADDRESS_RATE_LIMIT_PER_SECOND', 100, 0, 1_000_000),
    addressRateLimitPerMinute: read.integer('ADDRESS_RATE_LIMIT_PER_MINUTE', 3000, 0, 60_000_000),
    authFailureLimitPerMinute: read.integer('AUTH_FAILURE_LIMIT_PER_MINUTE', 30, 0, 60_000_000),
    lookupCacheMs: read.integer('LOOKUP_CACHE_MS', 1000, 0, 60_000),
    maxJsonBodyBytes: read.integer('MAX_JSON_BODY_BYTES', 1_048_576, 1024, 1_073_741_824),
    maxJsonDepth: read.integer('MAX_JSON_DEPTH', 32, 8, 256),
    headersTimeoutMs,
    requestTimeoutMs,
    bodyIdleTimeoutMs,
    webhookSecretOverlapMs: read.integer('WEBHOOK_SECRET_OVERLAP_MS', 86_400_000, 0, 2_592_000_000),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: read.oneOf('LOG_FORMAT', LOG_FORMATS, 'auto'),
    metricsPort,
    metricsToken,
    tracing: readTracing(read),
    trustProxy: read.boolean('TRUST_PROXY', false),
    fetchTimeoutMs,
    fetchConnectTimeoutMs: read.integer('FETCH_CONNECT_TIMEOUT_MS', 5_000, 50, 120_000),
    fetchMaxBytes: read.integer('FETCH_MAX_BYTES', 104_857_600, 1024, 4_294_967_296),
    storageEncryptionKey: read.key('STORAGE_ENCRYPTION_KEY', read.string('STORAGE_ENCRYPTION_KEY')),
    storagePreviousKeys: (read.string('STORAGE_ENCRYPTION_PREVIOUS_KEYS') ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean)
      .map((entry) => read.key('STORAGE_ENCRYPTION_PREVIOUS_KEYS', entry))
      .filter((key): key is Buffer => key !== undefined),
    storageCheckTimeoutMs: read.integer('STORAGE_CHECK_TIMEOUT_MS', 10_000, 100, 120_000),
    storageListMaxPages: read.integer('STORAGE_LIST_MAX_PAGES', 10_000, 1, 10_000_000),
    storageListTimeoutMs: read.integer('STORAGE_LIST_TIMEOUT_MS', 600_000, 100, 86_400_000),
    storageListPageMaxBytes: read.integer('STORAGE_LIST_PAGE_MAX_BYTES', 8 * MIB, 64 * 1024, 1024 * MIB),
    taskItemsMax: read.integer('TASK_ITEMS_MAX', 100_000, 1, 100_000_000),
    temporaryTtlSeconds: read.integer('TEMP_TTL_SECONDS', 86_400, 1, 604_800),
    temporarySweepIntervalSeconds: read.integer('TEMP_SWEEP_INTERVAL_SECONDS', 600, 1, 86_400),
    temporaryBucket: readTemporaryBucket(read),
    maxInputPixels: read.integer('MAX_INPUT_PIXELS', 50_000_000, 1, 1_000_000_000),
    editConcurrency: read.integer('EDIT_CONCURRENCY', Math.max(1, availableParallelism()), 1, 256),
    editQueueLimit: read.integer('EDIT_QUEUE_LIMIT', 64, 0, 100_000),
    editMemoryBytes: read.integer('EDIT_MEMORY_BYTES', Math.floor(processMemory() / 2), MIB, 2 ** 40),
    editInputBytes: read.integer('EDIT_INPUT_BYTES', Math.max(64 * MIB, Math.floor(processMemory() / 8)), MIB, 2 ** 40),
    editKeySharePercent: read.integer('EDIT_KEY_SHARE', 50, 1, 100),
    taskConcurrency,
    taskAttempts: read.integer('TASK_ATTEMPTS', 5, 1, 100),
    taskOutstandingPerTask: read.integer('TASK_OUTSTANDING_PER_TASK', 2 * taskConcurrency, 1, 100_000),
    taskOutstandingPerAccount: read.integer('TASK_OUTSTANDING_PER_ACCOUNT', 2 * taskConcurrency, 1, 100_000),
    taskActivePerAccount: read.integer('TASK_ACTIVE_PER_ACCOUNT', 1000, 1, 1_000_000),
    taskRetryDelayMs: read.integer('TASK_RETRY_DELAY_MS', 2_000, 1, 3_600_000),
    taskStoreFailures: read.integer('TASK_STORE_FAILURES', 3, 1, 1_000),
    taskStoreProbeMs: read.integer('TASK_STORE_PROBE_MS', 10_000, 100, 3_600_000),
    taskStorePauseMaxMs: read.integer('TASK_STORE_PAUSE_MAX_MS', 3_600_000, 0, 7 * 86_400_000),
    workerLockMs,
    taskReconcileIntervalMs,
    vision: readVision(read),
    generative: readGenerative(read),
  });
  // One secret for every tenant let a receiver of one account forge webhooks for another: refused, not ignored,
  // so that an operator who set it learns that receivers must now verify with their account's secret.
  if (read.string('WEBHOOK_SECRET') !== undefined) {
    read.problem(
      'WEBHOOK_SECRET',
      'is no longer read: webhooks are signed with a secret per account (an admin gets it from ' +
        'POST /v1/webhooks/secret; docs/batch.md); unset it',
    );
  }
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}
