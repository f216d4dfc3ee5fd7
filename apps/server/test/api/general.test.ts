import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, type ApiResponse, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

type Operation = {
  security?: unknown[];
  requestBody?: { content?: { 'application/json'?: { schema?: { properties?: Record<string, { type?: unknown }> } } } };
};
type OpenApi = { paths: Record<string, Record<string, Operation>> };

let platform: TestPlatform;
let api: Api;
let admin: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(() => platform.close());

/** A request exactly as written: no URL normalisation by a client library. */
function rawRequest(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  const url = new URL(platform.url);
  return new Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: false,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text, headers: response.headers }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** A client error with the usual JSON body: never a 500, never an empty or HTML answer. */
function expectClientError(response: ApiResponse<unknown>, label: string) {
  expect(response.status, label).toBeGreaterThanOrEqual(400);
  expect(response.status, label).toBeLessThan(500);
  expect(typeof (response.body as ApiError)?.detail, `${label}: ${JSON.stringify(response.body)}`).toBe('string');
}

describe('unknown paths and malformed requests', () => {
  it('an unknown /api path answers 404 JSON, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      const response = await api.call<ApiError>(method, '/no/such/route?x=1', { token: admin });
      expect(response.status, method).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.body, method).toEqual({ detail: `No API route ${method} /api/no/such/route` });
    }
    const anonymous = await api.call<ApiError>('GET', '/nothing-here');
    expect(anonymous.status).toBe(404);
  });

  it('malformed JSON answers 400 on every kind of route', async () => {
    const cases: [string, string, string | undefined][] = [
      ['POST', '/auth/login', undefined],
      ['POST', '/auth/verify-mfa', undefined],
      ['POST', '/users', admin],
      ['PATCH', '/users/me', admin],
      ['PATCH', '/users/1', admin],
      ['POST', '/users/1/roles', admin],
    ];
    for (const [method, path, token] of cases) {
      for (const rawBody of ['{"email":', '{bad json}', "{'single': 'quotes'}", '[1,2', '\u0000']) {
        const response = await api.call<ApiError>(method, path, { token, rawBody });
        expect(response.status, `${method} ${path} ${rawBody}`).toBe(400);
        expect(response.body.detail, `${method} ${path}`).toMatch(/^Malformed JSON body: /);
      }
    }
  });

  it('an empty JSON body answers 400 naming the missing fields', async () => {
    const response = await api.call<ApiError>('POST', '/auth/login', { rawBody: '' });
    expect(response.status).toBe(400);
    expect(response.body.errors?.map((e) => e.path)).toEqual(['(root)']);
    const withoutType = await rawRequest('POST', '/api/auth/login');
    expect(withoutType.status).toBe(400);
  });

  it('a body over 1 MB answers 413, signed in or not', async () => {
    const big = 'x'.repeat(1024 * 1024 + 10);
    const anonymous = await api.call<ApiError>('POST', '/auth/login', { body: { email: 'a@b.co', password: big } });
    expect(anonymous.status).toBe(413);
    expect(anonymous.body.detail).toBe('Request body is too large: the limit is 1024 KB');
    const signedIn = await api.call<ApiError>('PATCH', '/users/me', { token: admin, body: { username: big } });
    expect(signedIn.status).toBe(413);
    // Just under the limit is read and validated: a 400 for the too-long name, not a 413.
    const under = await api.call<ApiError>('PATCH', '/users/me', { token: admin, body: { username: 'y'.repeat(900_000) } });
    expect(under.status).toBe(400);
    expect(under.body.errors).toEqual([{ path: 'username', message: 'Name must be at most 100 characters' }]);
  });

  it('an unsupported content type answers 415; JSON with a charset is fine', async () => {
    const xml = await api.call<ApiError>('POST', '/auth/login', {
      rawBody: '<login/>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(xml.status).toBe(415);
    expect(xml.body.detail).toBe('Unsupported content type: send application/json');
    const charset = await api.call('POST', '/auth/login', {
      rawBody: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(200);
  });
});

describe('the route decides who may call it, not the spelling of the URL', () => {
  it('percent-encoded and oddly spelled paths to guarded routes still need credentials', async () => {
    const attempts: [string, string][] = [
      ['GET', '/%61pi/users'],
      ['GET', '/%61%70%69/users'],
      ['GET', '/api/%75sers'],
      ['GET', '/%61pi/users/1'],
      ['GET', '/%61pi/user/me'],
      ['GET', '/%61pi/projects'],
      ['GET', '/api/users/'],
      ['GET', '/api/users?x=/api/health'],
      ['HEAD', '/%61pi/users'],
      ['POST', '/%61pi/users/me/mfa/setup'],
      ['PATCH', '/%61pi/users/1'],
      ['DELETE', '/%61pi/users/1'],
    ];
    for (const [method, path] of attempts) {
      const response = await rawRequest(
        method,
        path,
        { 'content-type': 'application/json' },
        method === 'GET' || method === 'HEAD' ? undefined : '{}',
      );
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.text, `${method} ${path}`).not.toContain(ADMIN_EMAIL);
    }
    const reader = await api.userWithRole(admin, 'reader');
    const asReader = await rawRequest('GET', '/%61pi/users', { authorization: `Bearer ${reader.token}` });
    expect(asReader.status).toBe(403);
    // And nothing changed behind the refusals.
    const me = await api.call('GET', '/user/me', { token: admin });
    expect(me.body).toMatchObject({ email: ADMIN_EMAIL, username: 'Admin', mfa_enabled: false });
  });

  it('paths that only look like the API never reach it', async () => {
    for (const path of ['//api/users', '/API/users', '/api/docs/../users', '/api/docs%2F..%2Fusers', '/api/docsusers']) {
      const response = await rawRequest('GET', path);
      expect(response.status, path).not.toBe(500);
      expect(response.text, path).not.toContain(ADMIN_EMAIL);
      expect(response.text, path).not.toContain('"users"');
    }
  });

  it('odd credentials answer 401, never 500', async () => {
    const headers: Record<string, string>[] = [
      { authorization: 'Bearer ' },
      { authorization: 'Bearer' },
      { authorization: `Bearer lbs_${'x'.repeat(5000)}` },
      { authorization: `Bearer lb_${'x'.repeat(200)}` },
      { authorization: 'Bearer lb_' },
      { authorization: 'Basic YWRtaW46YWRtaW4=' },
      { cookie: 'lb_session=%E0%A4%A' },
      { cookie: 'lb_session=' },
      { cookie: `lb_session=${'%'.repeat(300)}` },
      { cookie: '=;;=;lb_session' },
    ];
    for (const header of headers) {
      const response = await rawRequest('GET', '/api/user/me', header);
      expect(response.status, JSON.stringify(header).slice(0, 80)).toBe(401);
      expect(JSON.parse(response.text).detail, JSON.stringify(header).slice(0, 80)).toEqual(expect.any(String));
    }
  });
});

describe('no bad input gets a 500', () => {
  const randomish = (length: number) => {
    // Incompressible text, so values that reach the database are really this long there.
    let seed = 1234567;
    let out = '';
    for (let i = 0; i < length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      out += 'abcdefghijklmnopqrstuvwxyz0123456789'[seed % 36];
    }
    return out;
  };
  const longRandom = randomish(20_000);
  const unicode = 'Zoë 名前 🦄 \u202eevil\u202c \u0000 nul \ud800 lone';
  const badValues: unknown[] = [
    null,
    123,
    -1,
    1e308,
    true,
    [],
    ['a', 1],
    {},
    { $gt: '' },
    'x'.repeat(200_000),
    longRandom,
    `${longRandom}@example.com`,
    unicode,
    `${unicode}@example.com`,
    'a\u0000b@example.com',
    '',
    ' ',
  ];
  const badBodies = [
    '[]',
    '"string"',
    '42',
    'null',
    'true',
    '[{}]',
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
  ];

  it('every documented route, with wrong types, huge strings, unicode and NUL characters in every field', async () => {
    const victim = await api.userWithRole(admin, 'admin');
    let token = victim.token;
    /** A body valid enough to change the victim's password, email or state: put the victim back. */
    const repair = async () => {
      const reset = await api.call('PATCH', `/users/${victim.id}`, {
        token: admin,
        body: { email: victim.email, password: victim.password, disabled: false },
      });
      expect(reset.status).toBe(200);
      token = await api.login(victim.email, victim.password);
    };
    const doc = (await api.call<OpenApi>('GET', '/docs/json')).body;
    const statuses = new Map<number, number>();
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!['post', 'put', 'patch', 'delete'].includes(method)) continue;
        // Signing out would end the run, not test input handling.
        if (path === '/api/logout') continue;
        const url = path
          .replace(/\{role_type\}/, 'user')
          .replace(/\{[^}]+\}/g, String(victim.id))
          .replace(/^\/api/, '');
        const properties = Object.keys(operation.requestBody?.content?.['application/json']?.schema?.properties ?? {});
        const bodies = [...badBodies];
        for (const value of badValues) {
          if (properties.length > 1) bodies.push(JSON.stringify(Object.fromEntries(properties.map((p) => [p, value]))));
          for (const property of properties) bodies.push(JSON.stringify({ [property]: value }));
        }
        for (const body of bodies) {
          const response = await api.call<ApiError>(method.toUpperCase(), url, { token, rawBody: body });
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (response.status === 401 && !path.startsWith('/api/auth/')) await repair();
          else if (response.status >= 300) expectClientError(response, `${method.toUpperCase()} ${path} ${body.slice(0, 120)}`);
        }
      }
    }
    // The run reached validation (not just a wall of 401s), and nothing was a server error.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(300);
    expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
    // Thousands of calls, one after another, over every mutating route.
  }, 180_000);

  it('path parameters that are not ids answer 400 or 404, never 500', async () => {
    const doc = (await api.call<OpenApi>('GET', '/docs/json')).body;
    const withParams = Object.entries(doc.paths).filter(([path]) => path.includes('{'));
    expect(withParams.length).toBeGreaterThan(4);
    const badIds = [
      'abc',
      '-1',
      '0',
      '1.5',
      '99999999999',
      '2147483648',
      '1e400',
      'NaN',
      'Infinity',
      '%00',
      '%F0%9F%A6%84',
      'x'.repeat(400),
      '1;DROP TABLE users',
      "1'",
    ];
    for (const [path, operations] of withParams) {
      for (const method of Object.keys(operations)) {
        if (method !== 'get' && method !== 'delete') continue;
        for (const id of badIds) {
          const url = path.replace(/^\/api/, '').replace(/\{[^}]+\}/g, id);
          const response = await api.call<ApiError>(method.toUpperCase(), url, { token: admin });
          const label = `${method.toUpperCase()} ${url.slice(0, 80)}`;
          expectClientError(response, label);
          expect([400, 404], label).toContain(response.status);
        }
      }
    }
    // An id past the database's integer range cannot exist: the schema refuses it with a field error.
    const huge = await api.call<ApiError>('GET', '/users/99999999999', { token: admin });
    expect(huge.status).toBe(400);
    expect(huge.body.errors).toEqual([{ path: 'params.user_id', message: 'Must be a positive whole number' }]);
    for (const sneaky of ['0x1', '1e3', '01', '-1']) {
      expect((await api.call('GET', `/users/${sneaky}`, { token: admin })).status, sneaky).toBe(400);
    }
    expect((await api.call('GET', '/users/1', { token: admin })).status).toBe(200);
  });

  it('query strings with wrong types answer 400, never 500', async () => {
    for (const query of [
      'page=',
      'page=1&page=2',
      'page[]=1',
      'per_page=%00',
      'per_page=1e2',
      'page=0x10',
      `page=${'9'.repeat(400)}`,
    ]) {
      const response = await api.call<ApiError>('GET', `/projects?${query}`, { token: admin });
      expect(response.status, query).toBeLessThan(500);
      if (response.status !== 200) expectClientError(response, query);
    }
  });

  it('sign-in with odd values answers 400 or 401, and the account stays intact', async () => {
    for (const value of badValues) {
      for (const body of [
        { email: value, password: 'x' },
        { email: 'someone@example.com', password: value },
      ]) {
        const response = await api.call<ApiError>('POST', '/auth/login', {
          body,
          headers: { 'x-forwarded-for': '203.0.113.99' },
        });
        const label = JSON.stringify(body).slice(0, 100);
        expectClientError(response, label);
        expect([400, 401, 429], label).toContain(response.status);
      }
    }
    expect(await api.login(ADMIN_EMAIL, ADMIN_PASSWORD)).toMatch(/^lbs_/);
  });

  it('a NUL character in a name answers 400, not 500, and changes nothing', async () => {
    const response = await api.call<ApiError>('PATCH', '/users/me', { token: admin, body: { username: 'a\u0000b' } });
    expect(response.status).toBe(400);
    // Refused for every route before any schema runs (a NUL cannot be stored, nor audited).
    expect(response.body.errors).toEqual([
      { path: 'username', message: 'Must not contain NUL characters or unpaired surrogates (invalid Unicode)' },
    ]);
    const created = await api.call<ApiError>('POST', '/users', {
      token: admin,
      body: { username: 'nul\u0000name', email: 'nul-user@example.com', password: 'long-enough-1' },
    });
    expect(created.status).toBe(400);
    const list = await api.call<{ users: { email: string }[] }>('GET', '/users', { token: admin });
    expect(list.body.users.map((u) => u.email)).not.toContain('nul-user@example.com');
    expect((await api.call('GET', '/user/me', { token: admin })).body).toMatchObject({ username: 'Admin' });
  });
});
