// The one place the dashboard talks to the service: the generated client (./client, from openapi.json), the key
// kept in sessionStorage only, and the API's error body turned into words a user can act on.
import { client } from './client/client.gen';
import type { ErrorBodyDto, KeyResponseDto } from './client/types.gen';

const KEY_ITEM = 'atelier.key';

export type Scope = KeyResponseDto['scopes'][number];

/** The signed-in key: sessionStorage (this tab only, gone when it closes), never a cookie, never logged. */
export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_ITEM);
}

export function rememberKey(key: string | null): void {
  if (key === null) sessionStorage.removeItem(KEY_ITEM);
  else sessionStorage.setItem(KEY_ITEM, key);
  client.setConfig({ baseUrl: window.location.origin, auth: () => storedKey() ?? undefined });
}

/** An answer of the API that is not a success: its status and error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBodyDto | undefined,
  ) {
    super(describeError(status, body));
  }

  /** Field messages of a validation error: dotted path -> messages. */
  get fields(): Record<string, string[]> {
    const details = (this.body?.error_details ?? {}) as Record<string, unknown>;
    const out: Record<string, string[]> = {};
    for (const [path, value] of Object.entries(details)) {
      if (Array.isArray(value)) out[path] = value.map(String);
      else if (typeof value === 'string') out[path] = [value];
    }
    return out;
  }
}

function describeError(status: number, body: ErrorBodyDto | undefined): string {
  if (body?.error_message) return body.error_message;
  if (status === 0) return 'The service cannot be reached: check that it is running and try again.';
  return `The service answered ${status} without an explanation; try again, or look at its logs.`;
}

/** The generated client's result: `{data}` on success, `{error, response}` otherwise. */
interface Result<T> {
  data?: T;
  error?: unknown;
  response?: Response;
}

/** Unwraps the envelope `{data}` or throws an {@link ApiError}. */
export async function unwrap<T>(call: Promise<Result<{ data: T }>>): Promise<T> {
  let result: Result<{ data: T }>;
  try {
    result = await call;
  } catch {
    throw new ApiError(0, undefined);
  }
  if (result.error !== undefined || !result.data) {
    throw new ApiError(result.response?.status ?? 0, result.error as ErrorBodyDto | undefined);
  }
  return result.data.data;
}

const bearer = [{ scheme: 'bearer' as const, type: 'http' as const }];

/** A route of the public API through the generated client's transport (for routes added after the client). */
export function request<T>(method: 'GET' | 'PATCH' | 'POST' | 'DELETE', url: string, body?: unknown): Promise<T> {
  return unwrap<T>(
    client.request({
      method,
      url,
      security: bearer,
      ...(body === undefined ? {} : { body, headers: { 'Content-Type': 'application/json' } }),
    }) as Promise<Result<{ data: T }>>,
  );
}

/** GET /v1/usage (API-16): the signed-in key's calls, quota, rate limit and the account's recent errors. */
export interface Usage {
  key: { id: number; name: string; prefix: string; scopes: Scope[] };
  calls_used: number;
  quota: number | null;
  calls_left: number | null;
  rate_limit: Record<'per_second' | 'per_minute', { limit: number; remaining: number; reset_seconds: number }>;
  recent_errors: { task_id: number; input: string; error: ErrorBodyDto; created_at: string }[];
}

/** GET /v1/tasks items (API-16). */
export interface TaskSummary {
  id: number;
  kind: 'batch' | 'async';
  status: 'ACCEPTED' | 'PROCESSING' | 'DONE' | 'ERROR';
  progress: { total: number; done: number; failed: number; retrying: number };
  created_at: string;
  updated_at: string;
  result_url: string;
}

export interface Page<T> {
  items: T[];
  page: number;
  per_page: number;
  total: number;
}

/**
 * Verifies the signed-in key and reads its scopes: GET /v1/usage (any key). Where the service has no such route
 * (an older version), an admin key is still recognised by GET /v1/keys (the key whose prefix starts it).
 */
export async function whoAmI(): Promise<Usage> {
  try {
    return await request<Usage>('GET', '/v1/usage');
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    const key = storedKey() ?? '';
    const keys = await request<KeyResponseDto[]>('GET', '/v1/keys');
    const mine = keys.find((k) => key.startsWith(k.prefix));
    const name = mine?.name ?? 'admin key';
    return {
      key: { id: mine?.id ?? 0, name, prefix: mine?.prefix ?? key.slice(0, 12), scopes: mine?.scopes ?? ['admin'] },
      calls_used: mine?.calls_used ?? 0,
      quota: mine?.quota ?? null,
      calls_left: null,
      rate_limit: {
        per_second: { limit: 0, remaining: 0, reset_seconds: 0 },
        per_minute: { limit: 0, remaining: 0, reset_seconds: 0 },
      },
      recent_errors: [],
    };
  }
}
