import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

type ProjectList = {
  projects: {
    id: number;
    name: string;
    slug: string;
    created_at: string;
    url: string;
    last_deployment: unknown;
    current_deployment: unknown;
  }[];
  total: number;
  page: number;
  per_page: number;
};

let platform: TestPlatform;
let api: Api;
let admin: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(() => platform.close());

/** Projects have no create route yet: rows go straight into the database. */
async function insertProject(name: string, slug: string, faviconUrl: string | null = null): Promise<number> {
  const { rows } = await platform.ctx.pool.query<{ id: number }>(
    'INSERT INTO projects (name, slug, favicon_url) VALUES ($1, $2, $3) RETURNING id',
    [name, slug, faviconUrl],
  );
  return rows[0]?.id ?? 0;
}

describe('GET /api/projects', () => {
  it('answers an empty first page when there are no projects', async () => {
    const response = await api.call<ProjectList>('GET', '/projects', { token: admin });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ projects: [], total: 0, page: 1, per_page: 20 });
  });

  it('pages through the projects in name order, with the total', async () => {
    // Inserted out of order: the list sorts by name.
    const names = Array.from({ length: 25 }, (_, i) => `Project ${String(i + 1).padStart(2, '0')}`);
    for (const name of [...names].reverse()) await insertProject(name, name.toLowerCase().replace(' ', '-'));

    const first = await api.call<ProjectList>('GET', '/projects?page=1&per_page=10', { token: admin });
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(25);
    expect(first.body.page).toBe(1);
    expect(first.body.per_page).toBe(10);
    expect(first.body.projects.map((p) => p.name)).toEqual(names.slice(0, 10));
    expect(first.body.projects[0]).toEqual({
      id: expect.any(Number),
      name: 'Project 01',
      slug: 'project-01',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      // Rows without a production environment or deployments (projects-api.test.ts lists real ones).
      url: '',
      last_deployment: null,
      current_deployment: null,
    });

    const third = await api.call<ProjectList>('GET', '/projects?page=3&per_page=10', { token: admin });
    expect(third.body.projects.map((p) => p.name)).toEqual(names.slice(20));
    expect(third.body.total).toBe(25);

    const past = await api.call<ProjectList>('GET', '/projects?page=4&per_page=10', { token: admin });
    expect(past.body).toEqual({ projects: [], total: 25, page: 4, per_page: 10 });
    const farPast = await api.call<ProjectList>('GET', `/projects?page=${Number.MAX_SAFE_INTEGER}&per_page=100`, {
      token: admin,
    });
    expect(farPast.status).toBe(200);
    expect(farPast.body).toMatchObject({ projects: [], total: 25 });

    const defaults = await api.call<ProjectList>('GET', '/projects', { token: admin });
    expect(defaults.body.projects).toHaveLength(20);
    expect(defaults.body).toMatchObject({ page: 1, per_page: 20, total: 25 });

    const all = await api.call<ProjectList>('GET', '/projects?per_page=100', { token: admin });
    expect(all.body.projects.map((p) => p.name)).toEqual(names);
    expect(new Set(all.body.projects.map((p) => p.id)).size).toBe(25);
  });

  it('every role may read; without credentials 401', async () => {
    for (const role of ['reader', 'user'] as const) {
      const person = await api.userWithRole(admin, role);
      const response = await api.call<ProjectList>('GET', '/projects?per_page=1', { token: person.token });
      expect(response.status, role).toBe(200);
      expect(response.body.total, role).toBe(25);
    }
    const anonymous = await api.call('GET', '/projects');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: 'Authentication Required' });
  });

  it('answers 400 with the field for a bad page or per_page', async () => {
    const cases: [string, string][] = [
      ['per_page=0', 'querystring.per_page'],
      ['per_page=101', 'querystring.per_page'],
      ['per_page=-5', 'querystring.per_page'],
      ['per_page=2.5', 'querystring.per_page'],
      ['page=0', 'querystring.page'],
      ['page=abc', 'querystring.page'],
      ['page=1e400', 'querystring.page'],
      ['page=99999999999999999999', 'querystring.page'],
    ];
    for (const [query, path] of cases) {
      const response = await api.call<ApiError>('GET', `/projects?${query}`, { token: admin });
      expect(response.status, query).toBe(400);
      expect(
        response.body.errors?.map((e) => e.path),
        query,
      ).toEqual([path]);
      expect(response.body.detail, query).toContain(path);
    }
  });
});

describe('GET /api/projects/{id}/favicon', () => {
  it('redirects to the favicon of a project that has one', async () => {
    const id = await insertProject('With icon', 'with-icon', 'https://cdn.example.com/icon.png');
    const response = await api.call('GET', `/projects/${id}/favicon`, { token: admin });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://cdn.example.com/icon.png');
  });

  it('answers 404 for an unknown project and for a project without a favicon', async () => {
    const unknown = await api.call<ApiError>('GET', '/projects/999999/favicon', { token: admin });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Project 999999 not found' });

    const id = await insertProject('No icon', 'no-icon');
    const none = await api.call<ApiError>('GET', `/projects/${id}/favicon`, { token: admin });
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ detail: 'This project has no favicon yet' });
  });

  it('answers 400 for an id that is not one, and 401 without credentials', async () => {
    for (const id of ['abc', '0', '-3', '1.5']) {
      const response = await api.call<ApiError>('GET', `/projects/${id}/favicon`, { token: admin });
      expect(response.status, id).toBe(400);
      expect(response.body.errors?.[0]?.path, id).toBe('params.id');
    }
    expect((await api.call('GET', '/projects/1/favicon')).status).toBe(401);
  });
});
