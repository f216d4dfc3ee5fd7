/** A thin fetch wrapper for API tests: JSON in, status + parsed JSON out. */
export type ApiResponse<T = unknown> = { status: number; body: T; headers: Headers };

export type ApiOptions = {
  token?: string;
  /** Sent as the Cookie header (e.g. `lb_mfa=...`). */
  cookie?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
};

/** The body every failed /api call answers with. */
export type ApiError = { detail: string; errors?: { path: string; message: string }[]; retry_after?: number };

export type Role = 'admin' | 'user' | 'reader';

export const TEST_PASSWORD = 'a-strong-password-1';

let counter = 0;
/** A unique email for one test user. */
export const uniqueEmail = (prefix = 'person') => `${prefix}-${Date.now()}-${++counter}@example.com`;

export function apiClient(baseUrl: string) {
  async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: ApiOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.cookie) headers.cookie = options.cookie;
    let body: string | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] ??= 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${baseUrl}/api${path}`, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON (e.g. the docs page): keep the text.
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  async function login(email: string, password: string): Promise<string> {
    const response = await call<{ token?: string; mfa_required: boolean }>('POST', '/auth/login', { body: { email, password } });
    if (response.status !== 200 || !response.body.token) {
      throw new Error(`login failed for ${email}: ${response.status} ${JSON.stringify(response.body)}`);
    }
    return response.body.token;
  }

  /** Creates a user with the given role through the API (as admin) and signs them in. */
  async function userWithRole(adminToken: string, role: Role, email = uniqueEmail(role)) {
    const password = TEST_PASSWORD;
    const created = await call<{ id: number }>('POST', '/users', {
      token: adminToken,
      body: { username: `${role} person`, email, password, roles: [role] },
    });
    if (created.status !== 201) throw new Error(`could not create ${role}: ${JSON.stringify(created.body)}`);
    return { id: created.body.id, email, password, token: await login(email, password) };
  }

  return { call, login, userWithRole };
}

export type Api = ReturnType<typeof apiClient>;

/** The value of one cookie in a response's Set-Cookie headers, with its attributes. */
export function setCookie(headers: Headers, name: string): { value: string; attributes: string } | undefined {
  for (const line of headers.getSetCookie()) {
    const [pair = '', ...rest] = line.split(';');
    const eq = pair.indexOf('=');
    if (pair.slice(0, eq).trim() === name) return { value: pair.slice(eq + 1).trim(), attributes: rest.join(';').trim() };
  }
  return undefined;
}
