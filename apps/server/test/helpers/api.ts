/** A thin fetch wrapper for API tests: JSON in, status + parsed JSON out. */
export type ApiResponse<T = unknown> = { status: number; body: T; headers: Headers };

export type ApiOptions = { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> };

export function apiClient(baseUrl: string) {
  async function call<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: ApiOptions = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
      headers['content-type'] ??= 'application/json';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${baseUrl}/api${path}`, { method, headers, body });
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
  async function userWithRole(
    adminToken: string,
    role: 'admin' | 'user' | 'reader',
    email = `${role}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`,
  ) {
    const password = 'a-strong-password-1';
    const created = await call<{ id: number }>('POST', '/users', {
      token: adminToken,
      body: { username: `${role} person`, email, password, roles: [role] },
    });
    if (created.status !== 201) throw new Error(`could not create ${role}: ${JSON.stringify(created.body)}`);
    return { id: created.body.id, email, password, token: await login(email, password) };
  }

  return { call, login, userWithRole };
}
