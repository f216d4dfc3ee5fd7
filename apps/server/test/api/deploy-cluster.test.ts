import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, apiClient } from '../helpers/api';
import {
  type ChildPlatform,
  childPlatformEnv,
  cleanUpChildren,
  ensureBuilt,
  startChildPlatform,
} from '../helpers/child-platform';
import { sharedDatabase } from '../helpers/platform';
import { settledDeployment } from '../helpers/projects';

/**
 * Two platform processes on one DATABASE_URL (with one ENCRYPTION_KEY, as every node of a cluster
 * must have) share the deployments queue of the job runtime: each deployment's pipeline job runs
 * once, on one node, whichever node the project was created on, and every deployment goes live.
 */

const EMAIL = 'cluster@example.com';
const PASSWORD = 'cluster-password-1';
const dataDirs: string[] = [];
const platforms: ChildPlatform[] = [];
let git: GitServer;
let database: Awaited<ReturnType<typeof sharedDatabase>>;
let databaseUrl: string;

beforeAll(async () => {
  ensureBuilt();
  git = await startGitServer();
  database = await sharedDatabase();
  databaseUrl = database.url;
}, 120_000);
afterAll(async () => {
  for (const platform of platforms) await platform.stop().catch(() => undefined);
  await cleanUpChildren(dataDirs);
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  await git?.close();
  await database?.close();
});

describe('two platforms on one database', { timeout: 240_000 }, () => {
  it('share the deployments queue: each pipeline job runs once, on one node, and every deployment goes live', async () => {
    const key = randomBytes(32).toString('base64');
    const node = async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-cluster-'));
      dataDirs.push(dataDir);
      const platform = await startChildPlatform(
        childPlatformEnv(dataDir, {
          ADMIN_EMAIL: EMAIL,
          ADMIN_PASSWORD: PASSWORD,
          DATABASE_URL: databaseUrl,
          ENCRYPTION_KEY: key,
          JOB_POLL_MS: '100',
        }),
      );
      platforms.push(platform);
      const api = apiClient(platform.url);
      return { api, token: await api.login(EMAIL, PASSWORD) };
    };
    // One after the other: the first creates the schema and the admin, the second finds them.
    const first = await node();
    const second = await node();

    // Projects created through either node; each enqueues its first deployment.
    const created: { projectId: number; deploymentId: number; via: { api: Api; token: string } }[] = [];
    for (let i = 0; i < 6; i++) {
      const via = i % 2 === 0 ? first : second;
      const repo = await git.createRepo(`acme/cluster-${i}`, { 'index.html': `<h1>site ${i}</h1>` });
      const response = await via.api.call<{ id: number; last_deployment: { id: number } }>('POST', '/projects', {
        token: via.token,
        body: { name: `Cluster Site ${i}`, git_url: repo.url, branch: 'main' },
      });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      created.push({ projectId: response.body.id, deploymentId: response.body.last_deployment.id, via });
    }

    for (const { projectId, deploymentId, via } of created) {
      const settled = await settledDeployment<{ status: string; error: string | null }>(
        via.api,
        via.token,
        projectId,
        deploymentId,
      );
      expect(settled.status, settled.error ?? '').toBe('ready');
      // Its pipeline ran once: one clone in its log.
      const log = await via.api.call<string>('GET', `/projects/${projectId}/deployments/${deploymentId}/logs`, {
        token: via.token,
      });
      expect(log.body.split('\n').filter((line) => line.includes('── clone'))).toHaveLength(1);
    }

    // Each deployment's job: one attempt, succeeded, claimed by one node.
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    try {
      const { rows } = await pool.query<{ deployment_id: number; status: string; attempts: number }>(
        `SELECT d.id AS deployment_id, j.status, j.attempts
         FROM deployments d JOIN jobs j ON j.id = d.job_id WHERE d.id = ANY($1::int[]) ORDER BY d.id`,
        [created.map((c) => c.deploymentId)],
      );
      expect(rows).toHaveLength(created.length);
      for (const row of rows) expect(row, JSON.stringify(row)).toMatchObject({ status: 'succeeded', attempts: 1 });
      const { rows: all } = await pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM jobs WHERE queue = 'deployments.run'",
      );
      expect(all[0]?.n).toBe(created.length);
    } finally {
      await pool.end();
    }
  });
});
