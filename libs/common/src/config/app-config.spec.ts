import { totalmem } from 'node:os';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './app-config';

describe('loadConfig', () => {
  it('fills the documented defaults from an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      publicBaseUrl: 'http://127.0.0.1:3000',
      dataDir: resolve('./data'),
      databaseUrl: undefined,
      redisUrl: undefined,
      fetchAllowHosts: [],
      rateLimitPerSecond: 4,
      rateLimitPerMinute: 120,
      addressRateLimitPerSecond: 100,
      addressRateLimitPerMinute: 3000,
      authFailureLimitPerMinute: 30,
      lookupCacheMs: 1000,
      logLevel: 'info',
      logFormat: 'auto',
      metricsPort: 0,
      metricsToken: undefined,
    });
    expect(config.databaseKind).toBe('sqlite');
  });

  it('derives the edit memory budgets from the memory the process may use, and reads them', () => {
    const memory = Math.min(process.constrainedMemory?.() || totalmem(), totalmem());
    expect(loadConfig({})).toMatchObject({
      editMemoryBytes: Math.floor(memory / 2),
      editInputBytes: Math.max(64 * 1024 * 1024, Math.floor(memory / 8)),
      editKeySharePercent: 50,
    });
    const set = loadConfig({ EDIT_MEMORY_BYTES: '1073741824', EDIT_INPUT_BYTES: '268435456', EDIT_KEY_SHARE: '100' });
    expect(set).toMatchObject({ editMemoryBytes: 1073741824, editInputBytes: 268435456, editKeySharePercent: 100 });
    expect(() => loadConfig({ EDIT_MEMORY_BYTES: '1000', EDIT_KEY_SHARE: '0' })).toThrow(
      /EDIT_MEMORY_BYTES.*\n.*EDIT_KEY_SHARE/s,
    );
  });

  it('reads every fixed variable name', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      PUBLIC_BASE_URL: 'https://images.example.com/',
      DATA_DIR: '/var/lib/atelier',
      DATABASE_URL: 'postgres://u@db:5432/atelier',
      REDIS_URL: 'redis://cache:6379',
      ADMIN_API_KEY: 'k'.repeat(40),
      FETCH_ALLOW_HOSTS: 'assets.internal, 10.0.0.0/8 ,127.0.0.2,::1',
      RATE_LIMIT_PER_SECOND: '10',
      RATE_LIMIT_PER_MINUTE: '600',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      publicBaseUrl: 'https://images.example.com',
      dataDir: '/var/lib/atelier',
      databaseUrl: 'postgres://u@db:5432/atelier',
      redisUrl: 'redis://cache:6379',
      fetchAllowHosts: ['assets.internal', '10.0.0.0/8', '127.0.0.2', '::1'],
      rateLimitPerSecond: 10,
      rateLimitPerMinute: 600,
    });
    expect(config.databaseKind).toBe('postgres');
  });

  it('brackets an IPv6 host in the default public URL and reads log levels and formats in any case', () => {
    const config = loadConfig({ HOST: '::1', PORT: '8081', LOG_LEVEL: 'WARN', LOG_FORMAT: 'Pretty' });
    expect(config.publicBaseUrl).toBe('http://[::1]:8081');
    expect(new URL(config.publicBaseUrl).port).toBe('8081');
    expect(config.logLevel).toBe('warn');
    expect(config.logFormat).toBe('pretty');
    expect(loadConfig({ HOST: '0.0.0.0' }).publicBaseUrl).toBe('http://localhost:3000');
  });

  it('reads the metrics listener and token, refusing the API port and a short token', () => {
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_TOKEN: 'a-long-enough-token' })).toMatchObject({
      metricsPort: 9464,
      metricsToken: 'a-long-enough-token',
    });
    expect(() => loadConfig({ PORT: '9464', METRICS_PORT: '9464' })).toThrow('METRICS_PORT: must differ from PORT');
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow('METRICS_TOKEN: must be at least 16 characters');
  });

  it('reconciles the queue every minute by default (longer with longer timeouts); 0 turns it off; less than the fetch and lock timeouts is refused', () => {
    expect(loadConfig({}).taskReconcileIntervalMs).toBe(60_000);
    expect(loadConfig({ TASK_RECONCILE_INTERVAL_MS: '0' }).taskReconcileIntervalMs).toBe(0);
    // A run under way when its job was lost ends within FETCH_TIMEOUT_MS + WORKER_LOCK_MS: only then is it queued again.
    expect(() => loadConfig({ TASK_RECONCILE_INTERVAL_MS: '59999' })).toThrow(
      'TASK_RECONCILE_INTERVAL_MS: must be 0 (off) or at least FETCH_TIMEOUT_MS + WORKER_LOCK_MS (60000)',
    );
    // Unset, it follows longer timeouts.
    expect(loadConfig({ WORKER_LOCK_MS: '300000' }).taskReconcileIntervalMs).toBe(330_000);
    const short = { FETCH_TIMEOUT_MS: '500', WORKER_LOCK_MS: '1000' };
    expect(loadConfig({ ...short, TASK_RECONCILE_INTERVAL_MS: '1500' }).taskReconcileIntervalMs).toBe(1500);
    expect(() => loadConfig({ ...short, TASK_RECONCILE_INTERVAL_MS: '1499' })).toThrow(
      'TASK_RECONCILE_INTERVAL_MS: must be 0 (off) or at least FETCH_TIMEOUT_MS + WORKER_LOCK_MS (1500)',
    );
    expect(() => loadConfig({ TASK_RECONCILE_INTERVAL_MS: '-1' })).toThrow('TASK_RECONCILE_INTERVAL_MS');
  });

  it('reads the folders local storages may use: absolute, resolved; off when empty', () => {
    expect(loadConfig({}).localStorageRoots).toEqual([]);
    expect(loadConfig({ LOCAL_STORAGE_ROOTS: ' /srv/images/ ,/data//teams/../shop' }).localStorageRoots).toEqual([
      '/srv/images',
      '/data/shop',
    ]);
    expect(() => loadConfig({ LOCAL_STORAGE_ROOTS: '/srv/images,images' })).toThrow(
      'LOCAL_STORAGE_ROOTS: "images" is not an absolute folder path',
    );
  });

  it('lists every problem at once', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: '70000',
        HOST: 'not a host',
        PUBLIC_BASE_URL: 'ftp://x',
        DATABASE_URL: 'mysql://x',
        REDIS_URL: 'http://x',
        ADMIN_API_KEY: 'short',
        FETCH_ALLOW_HOSTS: 'ok.host,bad host,10.0.0.1/33',
        RATE_LIMIT_PER_MINUTE: '-1',
        LOG_LEVEL: 'loud',
        LOG_FORMAT: 'yaml',
        TRUST_PROXY: 'maybe',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const variables = (error as ConfigError).problems.map((p) => p.variable);
    expect(variables).toEqual([
      'PORT',
      'HOST',
      'PUBLIC_BASE_URL',
      'ADMIN_API_KEY',
      'DATABASE_URL',
      'REDIS_URL',
      'FETCH_ALLOW_HOSTS',
      'FETCH_ALLOW_HOSTS',
      'RATE_LIMIT_PER_MINUTE',
      'LOG_LEVEL',
      'LOG_FORMAT',
      'TRUST_PROXY',
    ]);
    expect((error as ConfigError).message).toContain('PORT: must be an integer from 0 to 65535, got "70000"');
    expect((error as ConfigError).message).toContain('LOG_FORMAT: must be one of auto, pretty, json, got "yaml"');
  });

  it('bounds request bodies and their arrival: depth 32, headers in 20 s, the whole request in 2 min', () => {
    expect(loadConfig({})).toMatchObject({ maxJsonDepth: 32, headersTimeoutMs: 20_000, requestTimeoutMs: 120_000 });
    expect(() => loadConfig({ MAX_JSON_DEPTH: '4' })).toThrow('MAX_JSON_DEPTH: must be an integer from 8 to 256');
    // Node refuses a headers timeout longer than the request's; say so at start rather than at listen.
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '1000' })).toThrow(
      'HEADERS_TIMEOUT_MS: must not be more than REQUEST_TIMEOUT_MS (1000)',
    );
  });

  it('refuses WEBHOOK_SECRET, which per-account webhook secrets replaced, and says what to do', () => {
    expect(() => loadConfig({ WEBHOOK_SECRET: 'whsec_old' })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_SECRET: 'whsec_old' })).toThrow(/WEBHOOK_SECRET: .*\/v1\/webhooks\/secret/);
    expect(() => loadConfig({ WEBHOOK_SECRET: ' ' })).not.toThrow();
  });

  it('reads the vision settings: one thread, 8 waiting per model, CPU, the shipped U2-Netp unless a file is named, faces from a score of 0.5', () => {
    expect(loadConfig({}).vision).toEqual({
      threads: 1,
      queueLimit: 8,
      executionProvider: 'cpu',
      segmentation: { profile: 'u2net', file: undefined },
      faces: { minScore: 0.5 },
      textDetection: { maxSide: 960, file: undefined },
      superResolution: { tile: 192, mediumMaxPixels: 100_000 },
    });
    const sha256 = 'ab'.repeat(32);
    const named = loadConfig({
      VISION_THREADS: '2',
      VISION_QUEUE_LIMIT: '0',
      VISION_EXECUTION_PROVIDER: 'CUDA',
      SEGMENTATION_MODEL: 'models/isnet.onnx',
      SEGMENTATION_MODEL_SHA256: sha256.toUpperCase(),
      SEGMENTATION_PROFILE: 'isnet',
      FACE_MIN_SCORE: '35',
      TEXT_DETECTION_MAX_SIDE: '1280',
      TEXT_DETECTION_MODEL: 'models/det.onnx',
      TEXT_DETECTION_MODEL_SHA256: sha256,
      SUPER_RESOLUTION_TILE: '128',
      SUPER_RESOLUTION_MEDIUM_MAX_PIXELS: '0',
    });
    expect(named.vision).toEqual({
      threads: 2,
      queueLimit: 0,
      executionProvider: 'cuda',
      segmentation: { profile: 'isnet', file: { path: resolve('models/isnet.onnx'), sha256 } },
      faces: { minScore: 0.35 },
      textDetection: { maxSide: 1280, file: { path: resolve('models/det.onnx'), sha256 } },
      superResolution: { tile: 128, mediumMaxPixels: 0 },
    });
    expect(() => loadConfig({ SUPER_RESOLUTION_TILE: '32' })).toThrow(/SUPER_RESOLUTION_TILE/);
  });

  it.each([
    [
      { SEGMENTATION_MODEL: 'm.onnx' },
      'SEGMENTATION_MODEL_SHA256: SEGMENTATION_MODEL and SEGMENTATION_MODEL_SHA256 go',
    ],
    [{ SEGMENTATION_MODEL: 'm.onnx', SEGMENTATION_MODEL_SHA256: 'abc' }, 'SEGMENTATION_MODEL_SHA256: must be 64 hex'],
    [{ SEGMENTATION_PROFILE: 'birefnet' }, 'SEGMENTATION_PROFILE: "birefnet" needs SEGMENTATION_MODEL'],
    [{ SEGMENTATION_PROFILE: 'modnet' }, 'SEGMENTATION_PROFILE: must be one of u2net, isnet, birefnet'],
    [{ VISION_EXECUTION_PROVIDER: 'tpu' }, 'VISION_EXECUTION_PROVIDER: must be one of cpu, cuda'],
    [{ VISION_THREADS: '0' }, 'VISION_THREADS: must be an integer from 1 to 64'],
    [{ FACE_MIN_SCORE: '0.5' }, 'FACE_MIN_SCORE: must be an integer from 1 to 99'],
    [
      { TEXT_DETECTION_MODEL: 'd.onnx' },
      'TEXT_DETECTION_MODEL_SHA256: TEXT_DETECTION_MODEL and TEXT_DETECTION_MODEL_SHA256 go',
    ],
    [
      { TEXT_DETECTION_MODEL: 'd.onnx', TEXT_DETECTION_MODEL_SHA256: 'x' },
      'TEXT_DETECTION_MODEL_SHA256: must be 64 hex',
    ],
    [{ TEXT_DETECTION_MAX_SIDE: '100' }, 'TEXT_DETECTION_MAX_SIDE: must be an integer from 320 to 4096'],
  ])('refuses the vision setting %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
