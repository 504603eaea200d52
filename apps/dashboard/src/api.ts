// The one place the dashboard talks to the service: the generated client (./client, from openapi.json), the key
// kept in sessionStorage only, and the API's error body turned into words a user can act on.
import { client } from './client/client.gen';
import { usageOwn } from './client/sdk.gen';
import type { ErrorBodyDto, KeyResponseDto, UsageDto } from './client/types.gen';

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

export type { UsageDto as Usage, TaskSummaryDto as TaskSummary } from './client/types.gen';

/** Verifies the signed-in key and reads its scopes: GET /v1/usage answers any valid key, about itself. */
export function whoAmI(): Promise<UsageDto> {
  return unwrap(usageOwn());
}
