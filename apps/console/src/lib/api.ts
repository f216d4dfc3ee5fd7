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

/**
 * How a response body becomes a value: a contract schema (zod's `parse`), or `declared<typeof
 * schema>()` for the few calls on the login path.
 */
export interface ResponseReader<T> {
  parse(data: unknown): T;
}

/** The output type of a contract schema, read at the type level only (zod's `_zod.output`). */
type SchemaOutput<S> = S extends { _zod: { output: infer O } } ? O : never;

/**
 * A reader typed from a contract schema without parsing it: for the calls the login page makes
 * (current user, access info, sign-in, MFA), where loading zod would cost ~16 KB gzipped of the
 * page's 110 KB budget, and the shell's project list, which would pull zod and the contract into
 * every page's first load. The server validates and serializes these answers with the same schema
 * (Fastify's zod type provider), so the type holds. Every other call parses with its schema.
 */
export function declared<S>(): ResponseReader<SchemaOutput<S>> {
  // The one unchecked step: the value is the schema's output by the server's own serializer.
  return { parse: (data) => data as SchemaOutput<S> };
}

/** Thrown when a body does not match the contract: the console and the server disagree. */
function unexpectedResponse(status: number, path: string, cause: unknown): ApiRequestError {
  console.error(`[Launchbay] Unexpected response from ${path}`, cause);
  return new ApiRequestError({ status, detail: 'The server answered in an unexpected format' });
}

/**
 * JSON client for the same-origin API; the session is an httpOnly cookie. With `response` the
 * body is read through it (a contract schema); without, the call answers nothing.
 */
export async function api<T>(path: string, options: RequestOptions & { response: ResponseReader<T> }): Promise<T>;
export async function api(path: string, options?: RequestOptions): Promise<void>;
export async function api<T>(
  path: string,
  options: RequestOptions & { response?: ResponseReader<T> } = {},
): Promise<T | undefined> {
  const { method = 'GET', body, query, signal, response: reader } = options;
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
  if (!reader) return undefined;
  const text = response.status === 204 ? '' : await response.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
    return reader.parse(data);
  } catch (error) {
    throw unexpectedResponse(response.status, path, error);
  }
}
