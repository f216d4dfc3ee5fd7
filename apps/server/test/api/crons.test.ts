import { waitUntil } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCronScheduler } from '../../src/modules/crons/scheduler';
import { claimCronExecution, syncLaunchbayCrons } from '../../src/modules/crons/service';
import { publishRoutes } from '../../src/modules/deployments/edge-routes';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { createKey } from '../helpers/audit';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';
import { insertDeployment, insertProject } from '../helpers/projects';

type Execution = {
  id: number;
  cron_id: number;
  scheduled_for: string;
  status: string;
  status_code: number | null;
  duration_ms: number | null;
  response_body: string | null;
  error: string | null;
  deployment_id: number | null;
  trigger: string;
};
type Cron = {
  id: number;
  environment_id: number;
  path: string;
  schedule: string;
  source: string;
  enabled: boolean;
  next_run_at: string | null;
  last_execution: Execution | null;
};

let platform: TestPlatform;
let api: Api;
let admin: string;
let project: Awaited<ReturnType<typeof insertProject>>;
let production = 0;
let staging = 0;
let liveDeployment = 0;

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  project = await insertProject(platform.ctx.pool, { name: 'Ticker', slug: 'ticker', environments: ['staging'] });
  production = project.environments.production ?? 0;
  staging = project.environments.staging ?? 0;
  // A live static site: the edge serves its index.html at / and 404 elsewhere.
  liveDeployment = (
    await insertDeployment(platform.ctx.pool, {
      projectId: project.id,
      environmentId: production,
      status: 'ready',
      artifact: { dataDir: platform.dataDir },
      current: true,
    })
  ).id;
  await publishRoutes(platform.ctx, { waitMs: 5000 });
});
afterAll(() => platform.close());

const base = (env = production) => `/projects/${project.id}/environments/${env}/crons`;

async function create(body: Record<string, unknown>, env = production) {
  const created = await api.call<Cron>('POST', base(env), { token: admin, body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

describe('cron jobs: the API', () => {
  it('adds, lists, reads, edits and deletes a cron job, with its next run in UTC', async () => {
    const created = await create({ path: '/api/cleanup', schedule: '0 3 * * *' });
    expect(created).toMatchObject({
      path: '/api/cleanup',
      schedule: '0 3 * * *',
      source: 'console',
      enabled: true,
      last_execution: null,
    });
    const next = new Date(created.next_run_at ?? '');
    expect(next.getUTCHours()).toBe(3);
    expect(next.getUTCMinutes()).toBe(0);
    expect(next.getTime()).toBeGreaterThan(Date.now());

    const list = await api.call<{ crons: Cron[] }>('GET', base(), { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.crons.map((c) => c.id)).toContain(created.id);
    expect((await api.call<{ crons: Cron[] }>('GET', base(staging), { token: admin })).body.crons).toEqual([]);

    const one = await api.call<Cron>('GET', `${base()}/${created.id}`, { token: admin });
    expect(one.body).toMatchObject({ id: created.id, path: '/api/cleanup' });

    const edited = await api.call<Cron>('PATCH', `${base()}/${created.id}`, {
      token: admin,
      body: { schedule: '*/15 * * * *', enabled: false },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ schedule: '*/15 * * * *', enabled: false, next_run_at: null });

    const deleted = await api.call<{ message: string }>('DELETE', `${base()}/${created.id}`, { token: admin });
    expect(deleted.status).toBe(200);
    expect(deleted.body.message).toBe('Cron job deleted');
    expect((await api.call('GET', `${base()}/${created.id}`, { token: admin })).status).toBe(404);
  });

  it('answers 400 with field errors for a bad path or schedule, including patterns only croner refuses', async () => {
    const bad = await api.call<ApiError>('POST', base(), { token: admin, body: { path: 'cleanup', schedule: 'often' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'path', message: 'Must start with / (e.g. /api/cron/cleanup), without spaces' },
        { path: 'schedule', message: 'Must be a cron expression, e.g. `0 3 * * *` (5 fields, or 6 with seconds first)' },
      ]),
    );
    const outOfRange = await api.call<ApiError>('POST', base(), { token: admin, body: { path: '/x', schedule: '61 * * * *' } });
    expect(outOfRange.status).toBe(400);
    expect(outOfRange.body.errors?.[0]?.path).toBe('schedule');
    expect(outOfRange.body.errors?.[0]?.message).toMatch(/^Not a valid cron expression/);
    const empty = await api.call<ApiError>('PATCH', `${base()}/1`, { token: admin, body: {} });
    expect(empty.status).toBe(400);
  });

  it('answers 401 without a credential, 403 for a reader or a key without projects:write, 404 for unknown ids', async () => {
    expect((await api.call('GET', base())).status).toBe(401);
    const reader = await api.userWithRole(admin, 'reader');
    expect((await api.call('GET', base(), { token: reader.token })).status).toBe(200);
    expect((await api.call('POST', base(), { token: reader.token, body: { path: '/x', schedule: '@daily' } })).status).toBe(403);
    const readKey = (await createKey(api, admin, ['projects:read'])).secret;
    expect((await api.call('GET', base(), { token: readKey })).status).toBe(200);
    const refused = await api.call<ApiError>('POST', base(), { token: readKey, body: { path: '/x', schedule: '@daily' } });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('This API key lacks the projects:write permission');
    expect((await api.call('GET', `/projects/${project.id}/environments/999999/crons`, { token: admin })).status).toBe(404);
    expect((await api.call('GET', `/projects/999999/environments/${production}/crons`, { token: admin })).status).toBe(404);
    expect((await api.call('GET', `${base()}/999999`, { token: admin })).status).toBe(404);
    expect((await api.call('GET', `${base()}/999999/executions`, { token: admin })).status).toBe(404);
    // A cron of another environment is not found through this one.
    const other = await create({ path: '/s', schedule: '@hourly' }, staging);
    expect((await api.call('GET', `${base()}/${other.id}`, { token: admin })).status).toBe(404);
  });
});

describe('cron jobs: executions', () => {
  it('run now calls the live deployment through the edge and records status, duration and the first KB', async () => {
    const cron = await create({ path: '/', schedule: '@daily' });
    const run = await api.call<Execution>('POST', `${base()}/${cron.id}/run`, { token: admin });
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body).toMatchObject({
      status: 'succeeded',
      status_code: 200,
      trigger: 'manual',
      deployment_id: liveDeployment,
      error: null,
    });
    expect(run.body.response_body).toContain(`<h1>deployment ${liveDeployment}</h1>`);
    expect(run.body.duration_ms).toBeGreaterThanOrEqual(0);
    const listed = await api.call<{ executions: Execution[]; total: number }>('GET', `${base()}/${cron.id}/executions`, {
      token: admin,
    });
    expect(listed.body.total).toBe(1);
    expect(listed.body.executions[0]?.id).toBe(run.body.id);
    expect((await api.call<Cron>('GET', `${base()}/${cron.id}`, { token: admin })).body.last_execution?.id).toBe(run.body.id);
  });

  it('a failing call is recorded failed and publishes the cron_failed alert through the dispatcher', async () => {
    const cron = await create({ path: '/no-such-page', schedule: '@daily' });
    const run = await api.call<Execution>('POST', `${base()}/${cron.id}/run`, { token: admin });
    expect(run.body).toMatchObject({ status: 'failed', status_code: 404, error: 'The app answered 404' });
    const { rows } = await platform.ctx.pool.query<{ type: string; title: string }>(
      "SELECT type, title FROM notifications WHERE type = 'cron_failed' ORDER BY id DESC LIMIT 1",
    );
    expect(rows[0]).toEqual({ type: 'cron_failed', title: 'Ticker: cron job /no-such-page failed' });
  });

  it('never runs two executions of one job at once, and a run left by a stopped node stops blocking once stale', async () => {
    const cron = await create({ path: '/', schedule: '@daily' });
    const { rows } = await platform.ctx.pool.query<{ id: string }>(
      `INSERT INTO cron_executions (cron_id, scheduled_for, status, started_at) VALUES ($1, now() - interval '1 second', 'running', now()) RETURNING id`,
      [cron.id],
    );
    const blocked = await api.call<Execution>('POST', `${base()}/${cron.id}/run`, { token: admin });
    expect(blocked.body).toMatchObject({ status: 'skipped', error: `The previous execution (${rows[0]?.id}) is still running` });
    await platform.ctx.pool.query(`UPDATE cron_executions SET started_at = now() - interval '10 minutes' WHERE id = $1`, [
      rows[0]?.id,
    ]);
    const after = await api.call<Execution>('POST', `${base()}/${cron.id}/run`, { token: admin });
    expect(after.body.status).toBe('succeeded');
    const stale = await platform.ctx.pool.query<{ status: string; error: string }>(
      'SELECT status, error FROM cron_executions WHERE id = $1',
      [rows[0]?.id],
    );
    expect(stale.rows[0]).toEqual({ status: 'failed', error: 'The platform node running it stopped before it finished' });
  });

  it('is skipped while the environment has no live deployment', async () => {
    const cron = await create({ path: '/', schedule: '@daily' }, staging);
    const run = await api.call<Execution>('POST', `${base(staging)}/${cron.id}/run`, { token: admin });
    expect(run.body).toMatchObject({ status: 'skipped', error: 'The environment has no live deployment', deployment_id: null });
  });

  it('runs on schedule, each tick once even with a second scheduler (another node) on the same database', async () => {
    const second = startCronScheduler(platform.ctx, { warn: () => {}, error: (m: string) => console.error(m) });
    try {
      await second.ready();
      const cron = await create({ path: '/', schedule: '* * * * * *' }); // every second
      await second.ready(); // the second node learns of it too (it shares this process's change signal)
      await waitUntil(
        async () =>
          (
            await platform.ctx.pool.query('SELECT 1 FROM cron_executions WHERE cron_id = $1 AND status = $2', [
              cron.id,
              'succeeded',
            ])
          ).rowCount! >= 3,
        'three scheduled executions',
        15_000,
        200,
      );
      await api.call('PATCH', `${base()}/${cron.id}`, { token: admin, body: { enabled: false } });
      const { rows } = await platform.ctx.pool.query<{ scheduled_for: Date; trigger: string; status: string }>(
        'SELECT scheduled_for, trigger, status FROM cron_executions WHERE cron_id = $1 ORDER BY scheduled_for',
        [cron.id],
      );
      const ticks = rows.map((row) => row.scheduled_for.getTime());
      expect(new Set(ticks).size).toBe(ticks.length); // one execution per tick
      for (const tick of ticks) expect(tick % 1000).toBe(0); // whole seconds: the tick, not when a node got to it
      expect(rows.every((row) => row.trigger === 'schedule')).toBe(true);
      expect(rows.filter((row) => row.status === 'succeeded').length).toBeGreaterThanOrEqual(3);
    } finally {
      await second.stop();
    }
  });

  it("keeps launchbay.json's crons in step with the live deployment: edited there, only switched here", async () => {
    await syncLaunchbayCrons(platform.ctx, staging, [
      { path: '/api/nightly', schedule: '0 2 * * *' },
      { path: '/api/hourly', schedule: '@hourly' },
    ]);
    const listed = (await api.call<{ crons: Cron[] }>('GET', base(staging), { token: admin })).body.crons;
    const nightly = listed.find((c) => c.path === '/api/nightly');
    expect(nightly).toMatchObject({ source: 'launchbay.json', enabled: true });
    const edit = await api.call<ApiError>('PATCH', `${base(staging)}/${nightly?.id}`, {
      token: admin,
      body: { schedule: '0 4 * * *' },
    });
    expect(edit.status).toBe(409);
    expect(edit.body.detail).toBe("This cron job comes from the app's launchbay.json: change it there and redeploy");
    expect((await api.call('DELETE', `${base(staging)}/${nightly?.id}`, { token: admin })).status).toBe(409);
    const off = await api.call<Cron>('PATCH', `${base(staging)}/${nightly?.id}`, { token: admin, body: { enabled: false } });
    expect(off.body.enabled).toBe(false);

    // The next deployment's file drops /api/hourly and keeps /api/nightly (still switched off).
    await syncLaunchbayCrons(platform.ctx, staging, [{ path: '/api/nightly', schedule: '0 2 * * *' }]);
    const after = (await api.call<{ crons: Cron[] }>('GET', base(staging), { token: admin })).body.crons.filter(
      (c) => c.source === 'launchbay.json',
    );
    expect(after.map((c) => [c.id, c.path, c.enabled])).toEqual([[nightly?.id, '/api/nightly', false]]);
    // Console ones are not touched by the file.
    expect(
      (await api.call<{ crons: Cron[] }>('GET', base(staging), { token: admin })).body.crons.some((c) => c.source === 'console'),
    ).toBe(true);
  });

  it('claims a tick once: a second claim of the same tick records nothing', async () => {
    const cron = await create({ path: '/', schedule: '@daily' });
    const tick = new Date(Math.floor(Date.now() / 1000) * 1000);
    const first = await claimCronExecution(platform.ctx, cron.id, tick, 'schedule');
    const second = await claimCronExecution(platform.ctx, cron.id, tick, 'schedule');
    expect(first?.status).toBe('running');
    expect(second).toBeNull();
  });
});
