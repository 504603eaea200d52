/**
 * The one catalogue of error codes Atelier emits. Each entry fixes the HTTP status, the
 * contract's `error_type` group and the default message; docs/errors.md lists the same table.
 */
export type ErrorType =
  'auth' | 'billing' | 'general' | 'image' | 'runtime_settings' | 'scene' | 'storage' | 'user' | 'validation';

export interface ErrorDefinition {
  readonly code: string;
  readonly status: number;
  readonly type: ErrorType;
  readonly message: string;
  /**
   * Whether a failure with this code may pass when the same work runs again (batch items and webhooks are retried
   * on it: docs/batch.md). Absent is false. A code that covers both kinds (FETCH_FAILED: a reset connection, or an
   * origin's 404) is overridden where the error is made (ServiceExceptionOptions.retryable).
   */
  readonly retryable?: boolean;
}

function define<T extends Record<string, Omit<ErrorDefinition, never>>>(catalogue: T): T {
  return catalogue;
}

export const ErrorCodes = define({
  AUTH_REQUIRED: { code: '111', status: 401, type: 'auth', message: 'Authorization is required.' },
  AUTH_INVALID_KEY: { code: '111', status: 401, type: 'auth', message: 'The API key is unknown or revoked.' },
  AUTH_FORBIDDEN: {
    code: '113',
    status: 403,
    type: 'auth',
    message: 'The API key lacks the permission for this request.',
  },
  KEY_LIMITS_EXCEEDED: {
    code: '114',
    status: 403,
    type: 'auth',
    message: 'A key cannot be given more than the key that creates it has.',
  },
  QUOTA_EXHAUSTED: { code: '1101', status: 402, type: 'billing', message: 'No API calls left for this API key.' },
  RATE_LIMITED: { code: '2001', status: 429, type: 'general', message: 'Too Many Requests. Rate limit exceeded.' },
  ADDRESS_RATE_LIMITED: {
    code: '2002',
    status: 429,
    type: 'general',
    message: 'Too Many Requests from this address. Retry later.',
  },
  AUTH_FAILURES_LIMITED: {
    code: '2003',
    status: 429,
    type: 'general',
    message: 'Too many failed authentications from this address. Retry later.',
  },
  ACTIVE_TASKS_LIMITED: {
    code: '2004',
    status: 429,
    type: 'general',
    message: 'The account has too many tasks that have not ended. Retry once some have ended.',
  },
  KEY_NOT_FOUND: { code: '1201', status: 404, type: 'user', message: 'API key not found.' },
  KEY_REVOKED: { code: '1203', status: 409, type: 'user', message: 'The API key is revoked and cannot be changed.' },
  ACCOUNT_NOT_FOUND: { code: '1202', status: 404, type: 'user', message: 'Account not found.' },
  STORAGE_NOT_FOUND: { code: '1301', status: 404, type: 'storage', message: 'Storage not found.' },
  STORAGE_NAME_TAKEN: {
    code: '1302',
    status: 409,
    type: 'storage',
    message: 'A storage with this name already exists.',
  },
  STORAGE_UNREACHABLE: { code: '1303', status: 422, type: 'storage', message: 'The storage cannot be reached.' },
  STORAGE_OPERATION_UNSUPPORTED: {
    code: '1304',
    status: 422,
    type: 'storage',
    message: 'This storage type does not support the operation.',
  },
  STORAGE_OBJECT_NOT_FOUND: {
    code: '1305',
    status: 400,
    type: 'storage',
    message: 'The storage object cannot be fetched.',
  },
  // A request field names something that is not a storage reference of the account: a validation error for clients
  // that switch on `error_type`; the code stays 1306 for clients that switch on it (docs/errors.md).
  STORAGE_REFERENCE_INVALID: {
    code: '1306',
    status: 422,
    type: 'validation',
    message: 'The storage reference is not valid.',
  },
  STORAGE_BACKEND_FAILED: {
    code: '1307',
    status: 502,
    type: 'storage',
    message: 'The storage service failed; try again.',
    retryable: true,
  },
  STORAGE_LISTING_REFUSED: {
    code: '1308',
    status: 422,
    type: 'storage',
    message: "The storage's listing was stopped: it went past a listing limit.",
  },
  FETCH_REFUSED: { code: '1401', status: 400, type: 'general', message: 'The URL is not allowed.' },
  // Retryable for what fails before or while an origin answers (network, timeouts); an answer's status decides its own.
  FETCH_FAILED: {
    code: '1402',
    status: 400,
    type: 'general',
    message: 'The URL cannot be fetched.',
    retryable: true,
  },
  FETCH_TOO_LARGE: {
    code: '1403',
    status: 400,
    type: 'general',
    message: 'The download is larger than the size limit.',
  },
  WEBHOOK_URL_REFUSED: { code: '1404', status: 422, type: 'validation', message: 'The webhook URL is not allowed.' },
  TEMPORARY_NOT_FOUND: {
    code: '1501',
    status: 404,
    type: 'general',
    message: 'The temporary file does not exist or has expired.',
  },
  IMAGE_UNSUPPORTED: {
    code: '1601',
    status: 422,
    type: 'image',
    message: 'The input is not an image of a supported type (BMP, GIF, JPEG, PNG, TIFF, WEBP, AVIF, HEIC).',
  },
  IMAGE_CORRUPT: { code: '1602', status: 422, type: 'image', message: 'The input image cannot be decoded.' },
  IMAGE_TOO_LARGE: {
    code: '1603',
    status: 422,
    type: 'image',
    message: 'The image has more pixels than the limit.',
  },
  OPERATION_NOT_IMPLEMENTED: {
    code: '1604',
    status: 501,
    type: 'image',
    message: 'This operation needs a model that is not installed on this service.',
  },
  EDIT_BUSY: {
    code: '1605',
    status: 503,
    type: 'runtime_settings',
    message: 'Too many images are being processed; retry shortly.',
    retryable: true,
  },
  MODEL_BUSY: {
    code: '1606',
    status: 503,
    type: 'runtime_settings',
    message: 'The model this operation needs is busy; retry shortly.',
    retryable: true,
  },
  SCENE_BUSY: {
    code: '1801',
    status: 503,
    type: 'scene',
    message: 'Too many scenes are being created; retry shortly.',
    retryable: true,
  },
  SCENE_TIMEOUT: {
    code: '1802',
    status: 504,
    type: 'scene',
    message: 'The scene was not ready within the time limit.',
    retryable: true,
  },
  GENERATOR_FAILED: {
    code: '1803',
    status: 502,
    type: 'scene',
    message: 'The image generator failed.',
    retryable: true,
  },
  GENERATOR_TIMEOUT: {
    code: '1804',
    status: 504,
    type: 'scene',
    message: 'The image generator did not answer in time.',
    retryable: true,
  },
  TASK_NOT_FOUND: { code: '1701', status: 404, type: 'image', message: 'Task not found.' },
  TASK_ENDED: {
    code: '1702',
    status: 409,
    type: 'image',
    message: 'The task has ended (DONE, ERROR or CANCELLED) and cannot be cancelled.',
  },
  VALIDATION: { code: '9000', status: 422, type: 'validation', message: 'Validation failed.' },
  MALFORMED_BODY: { code: '9001', status: 400, type: 'validation', message: 'The request body is not valid JSON.' },
  ROUTE_NOT_FOUND: { code: '9002', status: 404, type: 'general', message: 'Route not found.' },
  METHOD_NOT_ALLOWED: { code: '9003', status: 405, type: 'general', message: 'Method not allowed.' },
  PAYLOAD_TOO_LARGE: { code: '9004', status: 413, type: 'general', message: 'The request body is too large.' },
  UNSUPPORTED_MEDIA_TYPE: {
    code: '9005',
    status: 415,
    type: 'general',
    message: 'Unsupported content type; send application/json.',
  },
  BAD_REQUEST: { code: '9006', status: 400, type: 'general', message: 'Bad request.' },
  BODY_TOO_DEEP: {
    code: '9007',
    status: 400,
    type: 'validation',
    message: 'The request body nests objects and arrays too deeply.',
  },
  REQUEST_TIMEOUT: { code: '9008', status: 408, type: 'general', message: 'The request did not arrive in time.' },
  HEADERS_TOO_LARGE: { code: '9009', status: 431, type: 'general', message: 'The request headers are too large.' },
  INTERNAL: { code: '9500', status: 500, type: 'runtime_settings', message: 'Internal error.', retryable: true },
  NOT_READY: {
    code: '9503',
    status: 503,
    type: 'runtime_settings',
    message: 'The service is not ready.',
    retryable: true,
  },
} as const);

export type ErrorCodeName = keyof typeof ErrorCodes;
