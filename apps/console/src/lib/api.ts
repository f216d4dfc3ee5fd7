import type { ApiError } from '@launchbay/contract';

type FieldError = NonNullable<ApiError['errors']>[number];

/** Thrown for every failed /api call: carries the server's `{ detail, errors, retry_after }`. */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly detail: string;
  readonly errors: FieldError[];
  readonly retryAfter: number | undefined;
  /** True when the request never reached the server (fetch TypeError, proxy/gateway down). */
  readonly network: boolean;
  readonly aborted: boolean;
  readonly code: string | undefined;

  constructor(init: {
    status: number;
    detail: string;
    errors?: FieldError[];
    retryAfter?: number;
    network?: boolean;
    aborted?: boolean;
    code?: string;
  }) {
    super(init.detail);
    this.name = 'ApiRequestError';
    this.status = init.status;
    this.detail = init.detail;
    this.errors = init.errors ?? [];
    this.retryAfter = init.retryAfter;
    this.network = init.network ?? false;
    this.aborted = init.aborted ?? false;
    this.code = init.code;
  }
}

export function isApiError(error: unknown): error is ApiRequestError {
  return error instanceof ApiRequestError;
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT']);

/** Network failure or a gateway/proxy that could not reach the server. */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof ApiRequestError) {
    if (error.aborted) return false;
    if (error.network) return true;
    if (error.code && CONNECTION_CODES.has(error.code)) return true;
    return error.status === 502 || error.status === 504;
  }
  if (error instanceof TypeError) return /failed to fetch|networkerror|load failed/i.test(error.message);
  return false;
}

export function isUnauthorized(error: unknown): boolean {
  if (error instanceof ApiRequestError) {
    return error.status === 401 || error.detail === 'Authentication Required' || error.detail === 'Unauthorized';
  }
  return false;
}

/** The server's detail for toasts, with a fallback for non-API failures. */
export function errorDetail(error: unknown, fallback = 'An error occurred'): string {
  if (error instanceof ApiRequestError) {
    if (error.network) return 'Cannot connect to the server. Check that Launchbay is running.';
    return error.detail || fallback;
  }
  if (error instanceof Error && error.message) return error.message;
  return fallback;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

async function toApiError(response: Response): Promise<ApiRequestError> {
  let body: unknown;
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
  }
  const detail =
    isRecord(body) && typeof body.detail === 'string'
      ? body.detail
      : response.statusText || `Request failed with status ${response.status}`;
  const errors = isRecord(body) && Array.isArray(body.errors) ? (body.errors as FieldError[]) : undefined;
  const retryAfter = isRecord(body) && typeof body.retry_after === 'number' ? body.retry_after : undefined;
  return new ApiRequestError({ status: response.status, detail, errors, retryAfter });
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
}

/** JSON client for the same-origin API; the session is an httpOnly cookie. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const { method = 'GET', body, query, signal } = options;
  let url = `/api${path}`;
  if (query) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) params.set(key, String(value));
    }
    const qs = params.toString();
    if (qs) url += `?${qs}`;
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: {
        Accept: 'application/json',
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal,
    });
  } catch (error) {
    const aborted = error instanceof DOMException && error.name === 'AbortError';
    throw new ApiRequestError({
      status: 0,
      detail: error instanceof Error ? error.message : 'Failed to fetch',
      network: !aborted,
      aborted,
    });
  }
  if (!response.ok) throw await toApiError(response);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}
