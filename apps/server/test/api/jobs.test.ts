import { sleep, waitUntil } from '@launchbay/testkit';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cancelJob, defineQueue, enqueue, type JobRuntime, startJobRuntime } from '../../src/jobs';
import { auditRetention } from '../../src/modules/audit/jobs';
import { type Api, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/**
 * The job runtime in one process on a real database: singleton keys, delays, retries with
 * backoff, cancellation of a running job, and a job's log over SSE with Last-Event-ID resume.
 * (Kill -9, several nodes and schedules across nodes: jobs-cluster.test.ts.)
 */

let platform: TestPlatform;
let runtime: JobRuntime;
let api: Api;
let admin: string;

/** When each run of a job started, by job id. */
const runsOf = new Map<number, number[]>();
const noteRun = (id: number) => runsOf.set(id, [...(runsOf.get(id) ?? []), Date.now()]);

const quickQueue = defineQueue({
  name: 'test.quick',
  payload: z.object({ label: z.string() }),
  async handler(payload, job) {
    noteRun(job.id);
    await job.log(`hello ${payload.label}`);
  },
});

const failingQueue = defineQueue({
  name: 'test.failing',
  payload: z.object({}),
  maxAttempts: 3,
  backoff: { baseMs: 300, maxMs: 10_000 },
  async handler(_payload, job) {
    noteRun(job.id);
    throw new Error(`boom ${job.attempt}`);
  },
});

/** Stopped by its signal only: a running job that must be cancelled. */
const stoppedQueue = defineQueue({
  name: 'test.until-stopped',
  payload: z.object({}),
  async handler(_payload, job) {
    noteRun(job.id);
    await job.log('waiting to be stopped');
    await new Promise<void>((resolve) => job.signal.addEventListener('abort', () => resolve()));
    await job.log(`stopped: ${(job.signal.reason as Error).message}`);
  },
});

/** Writes numbered lines with pauses, so a reader sees them arrive. */
const chattyQueue = defineQueue({
  name: 'test.chatty',
  payload: z.object({ lines: z.number().int() }),
  async handler(payload, job) {
    for (let i = 1; i <= payload.lines; i++) {
      await job.log(`line ${i}`);
      await sleep(60);
    }
  },
});

beforeAll(async () => {
  platform = await startTestPlatform({ JOB_POLL_MS: '100', JOB_LEASE_SECONDS: '2' });
  // A second runtime in this process runs the test queues (the platform's own runs its list).
  runtime = startJobRuntime(platform.ctx, pino({ level: 'silent' }), {
    queues: [quickQueue, failingQueue, stoppedQueue, chattyQueue],
  });
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});

afterAll(async () => {
  await runtime?.stop();
  await platform?.close();
});

type Job = {
  id: number;
  status: string;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  cancel_requested: boolean;
};
const getJob = async (id: number) => (await api.call<Job>('GET', `/jobs/${id}`, { token: admin })).body;
const finished = (id: number, timeoutMs = 10_000) =>
  waitUntil(
    async () => {
      const job = await getJob(id);
      return ['succeeded', 'failed', 'cancelled'].includes(job.status) ? job : undefined;
    },
    `job ${id} to finish`,
    timeoutMs,
  );

type Event = { id: string | null; event: string; data: string };

/** Reads an SSE stream until its `end` event (or the timeout), with the headers it answered. */
async function readStream(id: number, lastEventId?: string) {
  const response = await fetch(`${platform.url}/api/jobs/${id}/logs`, {
    headers: { authorization: `Bearer ${admin}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: AbortSignal.timeout(10_000),
  });
  const events: Event[] = [];
  let retry: string | undefined;
  const decoder = new TextDecoder();
  let buffer = '';
  if (!response.body) throw new Error('no body');
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = new Map(
        block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
      );
      if (fields.has('retry')) retry = fields.get('retry');
      if (fields.has('event'))
        events.push({ id: fields.get('id') ?? null, event: fields.get('event') ?? '', data: fields.get('data') ?? '' });
      end = buffer.indexOf('\n\n');
    }
    if (events.some((e) => e.event === 'end')) break;
  }
  return { response, events, retry };
}

describe('enqueue', () => {
  it('a singleton key dedupes: the same work is queued once while it waits or runs, and again after', async () => {
    const delayed = new Date(Date.now() + 1500);
    const first = await enqueue(platform.ctx, quickQueue, { label: 'once' }, { singletonKey: 'same-work', runAt: delayed });
    const second = await enqueue(platform.ctx, quickQueue, { label: 'twice' }, { singletonKey: 'same-work' });
    expect(first.created).toBe(true);
    expect(second).toEqual({ id: first.id, created: false });
    expect((await getJob(first.id)).status).toBe('pending'); // delayed: not before its time
    const done = await finished(first.id);
    expect(done.status).toBe('succeeded');
    expect(runsOf.get(first.id)?.[0]).toBeGreaterThanOrEqual(delayed.getTime() - 50);
    const third = await enqueue(platform.ctx, quickQueue, { label: 'later' }, { singletonKey: 'same-work' });
    expect(third.created).toBe(true);
    expect(third.id).not.toBe(first.id);
    await finished(third.id);
    expect(runsOf.get(first.id)).toHaveLength(1);
  });

  it('refuses a payload that does not match the queue', async () => {
    await expect(enqueue(platform.ctx, quickQueue, { label: 42 } as unknown as { label: string })).rejects.toThrow();
  });
});

describe('retries', () => {
  it('retries with doubling backoff, then records the failure after the last attempt', async () => {
    const { id } = await enqueue(platform.ctx, failingQueue, {});
    const done = await finished(id);
    expect(done).toMatchObject({ status: 'failed', attempts: 3, max_attempts: 3, last_error: 'boom 3' });
    const runs = runsOf.get(id) ?? [];
    expect(runs).toHaveLength(3);
    expect((runs[1] ?? 0) - (runs[0] ?? 0)).toBeGreaterThanOrEqual(300);
    expect((runs[2] ?? 0) - (runs[1] ?? 0)).toBeGreaterThanOrEqual(600);
    const { events } = await readStream(id);
    expect(events.filter((e) => e.event === 'log').map((e) => JSON.parse(e.data).message)).toEqual([
      'Failed: boom 1 (attempt 1 of 3); retrying in 300 ms',
      'Failed: boom 2 (attempt 2 of 3); retrying in 600 ms',
      'Failed: boom 3 (attempt 3 of 3, none left)',
    ]);
  });
});

describe('cancellation', () => {
  it('stops a running job: its handler gets the abort and the job is recorded cancelled', async () => {
    const { id } = await enqueue(platform.ctx, stoppedQueue, {});
    await waitUntil(async () => (await getJob(id)).status === 'running', 'the job to run');
    const asked = Date.now();
    expect(await cancelJob(platform.ctx, id)).toEqual({ status: 'running' });
    const done = await finished(id);
    expect(Date.now() - asked).toBeLessThan(3000);
    expect(done).toMatchObject({ status: 'cancelled', cancel_requested: true, last_error: 'Cancelled' });
    const { events } = await readStream(id);
    expect(events.map((e) => (e.event === 'log' ? JSON.parse(e.data).message : e.event))).toEqual([
      'waiting to be stopped',
      'stopped: Cancelled',
      'end',
    ]);
    expect(runsOf.get(id)).toHaveLength(1);
  });

  it('cancels a pending job before it runs, and says so for an unknown id', async () => {
    const { id } = await enqueue(platform.ctx, quickQueue, { label: 'never' }, { delayMs: 60_000 });
    expect(await cancelJob(platform.ctx, id)).toEqual({ status: 'cancelled' });
    expect(await cancelJob(platform.ctx, id)).toEqual({ status: 'cancelled' });
    expect(await cancelJob(platform.ctx, 987_654_321)).toBeNull();
    expect(runsOf.get(id)).toBeUndefined();
  });
});

describe("the platform's own schedules", () => {
  it('are registered once, and the hourly sweeps run as jobs (audit retention removes old entries)', async () => {
    const { rows } = await platform.ctx.pool.query<{ name: string; next_run_at: Date }>(
      'SELECT name, next_run_at FROM job_schedules ORDER BY name',
    );
    expect(rows.map((r) => r.name)).toEqual([
      'audit.retention',
      'auth.sweep',
      'deployments.log_retention',
      'domains.renewal',
      'jobs.retention',
      'notifications.retention',
      'proxy_logs.retention',
    ]);
    expect(rows.every((r) => new Date(r.next_run_at).getTime() - Date.now() <= 3600_000)).toBe(true);
    const old = await platform.ctx.pool.query<{ id: number }>(
      `INSERT INTO audit_logs (created_at, actor_type, action, summary, status_code, method, path)
       VALUES (now() - interval '400 days', 'system', 'test.old', '{}', 200, 'POST', '/api/test') RETURNING id`,
    );
    // Run now what the schedule runs hourly.
    const { id } = await enqueue(platform.ctx, auditRetention.queue, {});
    expect((await finished(id)).status).toBe('succeeded');
    const left = await platform.ctx.pool.query('SELECT 1 FROM audit_logs WHERE id = $1', [old.rows[0]?.id]);
    expect(left.rowCount).toBe(0);
  });
});

describe('GET /api/jobs/{id}/logs (SSE)', () => {
  it('streams the log as it is written, one id per line, and resumes after Last-Event-ID', async () => {
    const { id } = await enqueue(platform.ctx, chattyQueue, { lines: 8 });
    const whole = await readStream(id);
    expect(whole.response.status).toBe(200);
    expect(whole.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(whole.retry).toBe('3000'); // the console's stream client starts at 3000 ms
    const lines = whole.events.filter((e) => e.event === 'log');
    expect(lines.map((e) => JSON.parse(e.data).message)).toEqual(Array.from({ length: 8 }, (_, i) => `line ${i + 1}`));
    expect(lines.every((e) => e.id === String(JSON.parse(e.data).id))).toBe(true);
    expect(whole.events.at(-1)).toMatchObject({ event: 'end', data: JSON.stringify({ status: 'succeeded' }) });

    const resumed = await readStream(id, lines[2]?.id ?? undefined);
    expect(resumed.events.filter((e) => e.event === 'log').map((e) => JSON.parse(e.data).message)).toEqual(
      Array.from({ length: 5 }, (_, i) => `line ${i + 4}`),
    );
  });

  it('a reader connected mid-run sees lines arrive, drops, and resumes where it left off', async () => {
    const { id } = await enqueue(platform.ctx, chattyQueue, { lines: 12 });
    await waitUntil(async () => (await getJob(id)).status === 'running', 'the job to run');
    const controller = new AbortController();
    const response = await fetch(`${platform.url}/api/jobs/${id}/logs`, {
      headers: { authorization: `Bearer ${admin}` },
      signal: controller.signal,
    });
    let text = '';
    if (!response.body) throw new Error('no body');
    for await (const chunk of response.body) {
      text += new TextDecoder().decode(chunk as Uint8Array);
      if ((text.match(/^id: /gm) ?? []).length >= 2) break;
    }
    controller.abort(); // the connection drops
    const seen = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => m[1] ?? '');
    const last = seen.at(-1);
    const rest = await readStream(id, last);
    const messages = rest.events.filter((e) => e.event === 'log').map((e) => JSON.parse(e.data).message);
    expect(messages.length + seen.length).toBe(12);
    expect(messages.at(-1)).toBe('line 12');
    expect(messages[0]).toBe(`line ${seen.length + 1}`);
  });

  it('keeps the API rules: 400 for a bad id or Last-Event-ID, 404 for an unknown job, 401 without credentials', async () => {
    const { id } = await enqueue(platform.ctx, quickQueue, { label: 'rules' });
    expect((await api.call('GET', '/jobs/abc', { token: admin })).status).toBe(400);
    expect((await api.call('GET', '/jobs/abc/logs', { token: admin })).status).toBe(400);
    expect((await api.call('GET', '/jobs/987654321', { token: admin })).status).toBe(404);
    expect((await api.call('GET', '/jobs/987654321/logs', { token: admin })).status).toBe(404);
    expect((await api.call('GET', `/jobs/${id}`)).status).toBe(401);
    expect((await api.call('GET', `/jobs/${id}/logs`)).status).toBe(401);
    const badResume = await fetch(`${platform.url}/api/jobs/${id}/logs`, {
      headers: { authorization: `Bearer ${admin}`, 'last-event-id': 'yesterday' },
    });
    expect(badResume.status).toBe(400);
    expect(((await badResume.json()) as { detail: string }).detail).toBeTruthy();
  });

  it('an API key reads jobs with deployments:read, and is refused without it', async () => {
    const create = async (permissions: string[]) =>
      (
        await api.call<{ secret: string }>('POST', '/api-keys', {
          token: admin,
          body: { name: `jobs ${permissions}`, permissions },
        })
      ).body.secret;
    const { id } = await enqueue(platform.ctx, quickQueue, { label: 'keys' });
    const reader = await create(['deployments:read']);
    const other = await create(['projects:read']);
    expect((await api.call('GET', `/jobs/${id}`, { token: reader })).status).toBe(200);
    expect((await api.call('GET', `/jobs/${id}`, { token: other })).status).toBe(403);
  });
});
