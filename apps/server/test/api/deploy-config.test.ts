import fs from 'node:fs';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectCgroups } from '../../src/engine/runtime/process/cgroups';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { getThroughEdge } from '../helpers/edge';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';
import { settledDeployment } from '../helpers/projects';

/**
 * What a repository's own configuration and the create request's settings do to a real
 * deployment: launchbay.json's health-check path and required variables, its errors reaching the
 * user with their path, and the start command and preset given at create.
 */

type Deployment = { id: number; status: string; error: string | null; commit_sha: string | null };
type Project = { id: number; slug: string; environments: { id: number; name: string }[] };

let platform: TestPlatform;
let api: Api;
let admin: string;
let git: GitServer;

const settledOf = (projectId: number, deploymentId: number) => settledDeployment<Deployment>(api, admin, projectId, deploymentId);

beforeAll(async () => {
  git = await startGitServer();
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(async () => {
  await platform?.close();
  await git?.close();
});

const viaEdge = (host: string, path = '/') => getThroughEdge(platform.ctx.edge.port(), host, { path });

async function create(name: string, files: Record<string, string>, extra: Record<string, unknown> = {}) {
  const repo = await git.createRepo(`acme/${name.toLowerCase().replaceAll(' ', '-')}`, files);
  const created = await api.call<Project>('POST', '/projects', {
    token: admin,
    body: { name, git_url: repo.url, branch: 'main', ...extra },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const last = await api.call<Deployment>('GET', `/projects/${created.body.id}/last-deployment`, { token: admin });
  return { repo, project: created.body, deploymentId: last.body.id };
}

const logOf = async (projectId: number, deploymentId: number) =>
  (await api.call<string>('GET', `/projects/${projectId}/deployments/${deploymentId}/logs`, { token: admin })).body;

async function redeploy(projectId: number): Promise<number> {
  const triggered = await api.call<{ deployment_id: number }>('POST', `/projects/${projectId}/trigger-pipeline`, {
    token: admin,
    body: {},
  });
  expect(triggered.status).toBe(202);
  return triggered.body.deployment_id;
}

/** An app that records the paths it was asked, and answers them at /asked. */
const RECORDING_SERVER = (label: string) => `
const http = require('node:http');
const asked = [];
http.createServer((req, res) => {
  if (req.url === '/asked') return res.end(JSON.stringify(asked));
  asked.push(req.url);
  res.end(${JSON.stringify(label)});
}).listen(Number(process.env.PORT), process.env.HOST);
`;

describe('build configuration in a real deployment', { timeout: 180_000 }, () => {
  it("launchbay.json's health-check path is the one the platform asks before the switch", async () => {
    const { project, deploymentId } = await create('Health Path', {
      'package.json': JSON.stringify({ name: 'health-path', scripts: { start: 'node server.js' } }),
      'server.js': RECORDING_SERVER('healthy'),
      'launchbay.json': JSON.stringify({ healthCheckPath: '/healthz' }),
    });
    const ready = await settledOf(project.id, deploymentId);
    expect(ready.status, ready.error ?? '').toBe('ready');
    const asked = JSON.parse((await viaEdge('health-path.localhost', '/asked')).body) as string[];
    // Before any visitor: the health check's requests, all on its path.
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked)).toEqual(new Set(['/healthz']));
  });

  it("launchbay.json's required variables stop a deployment that lacks one, by name, until it is set", async () => {
    const { project, deploymentId } = await create('Needs Env', {
      'package.json': JSON.stringify({ name: 'needs-env', scripts: { start: 'node server.js' } }),
      'server.js': `require('node:http').createServer((q, s) => s.end('key=' + process.env.API_KEY)).listen(Number(process.env.PORT), process.env.HOST);`,
      'launchbay.json': JSON.stringify({ requiredEnv: ['API_KEY', 'REGION'] }),
    });
    const failed = await settledOf(project.id, deploymentId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe('Missing environment variables the app requires: API_KEY, REGION');
    expect((await viaEdge('needs-env.localhost')).status).not.toBe(200);

    for (const [key, value] of [
      ['API_KEY', 'k-123'],
      ['REGION', 'eu'],
    ]) {
      const added = await api.call('POST', `/projects/${project.id}/env-vars`, { token: admin, body: { key, value } });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
    }
    const second = await settledOf(project.id, await redeploy(project.id));
    expect(second.status, second.error ?? '').toBe('ready');
    expect((await viaEdge('needs-env.localhost')).body).toBe('key=k-123');
  });

  it("a launchbay.json that is not valid fails the deployment with each error's path, in its error and its log", async () => {
    const { project, deploymentId } = await create('Bad Config', {
      'index.html': '<h1>never served</h1>',
      'launchbay.json': JSON.stringify({ port: 'eighty', outputDirectory: 42, colour: 'blue' }),
    });
    const failed = await settledOf(project.id, deploymentId);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/^The build configuration is not valid: /);
    for (const path of ['port', 'outputDirectory']) expect(failed.error).toContain(`${path}: `);
    expect(failed.error).toContain('colour');
    const log = await logOf(project.id, deploymentId);
    expect(log).toContain('launchbay.json: port: ');
    expect(log).toContain('launchbay.json: outputDirectory: ');
  });

  it('the start command and the preset given at create decide how the app runs', async () => {
    // The repository's own start script would serve "from server.js": the create request's command wins.
    const started = await create(
      'Own Start',
      {
        'package.json': JSON.stringify({ name: 'own-start', scripts: { start: 'node server.js' } }),
        'server.js': RECORDING_SERVER('from server.js'),
        'other.js': RECORDING_SERVER('from other.js'),
      },
      { start_command: 'node other.js' },
    );
    const ready = await settledOf(started.project.id, started.deploymentId);
    expect(ready.status, ready.error ?? '').toBe('ready');
    expect((await viaEdge('own-start.localhost')).body).toBe('from other.js');
    const stored = await api.call<{ start_command: string | null; preset: string | null }>(
      'GET',
      `/projects/${started.project.id}`,
      { token: admin },
    );
    expect(stored.body).toMatchObject({ start_command: 'node other.js', preset: null });

    // Detected, this repository is a Node server; the preset "static" serves its files instead, with no process.
    const files = {
      'package.json': JSON.stringify({ name: 'as-static', scripts: { start: 'node server.js' } }),
      'server.js': RECORDING_SERVER('from the server'),
      'index.html': '<h1>from the files</h1>',
    };
    const detected = await create('As Server', files);
    expect((await settledOf(detected.project.id, detected.deploymentId)).status).toBe('ready');
    expect((await viaEdge('as-server.localhost')).body).toBe('from the server');
    const asStatic = await create('As Static', files, { preset: 'static' });
    const staticReady = await settledOf(asStatic.project.id, asStatic.deploymentId);
    expect(staticReady.status, staticReady.error ?? '').toBe('ready');
    expect(
      (await api.call<{ preset: string | null }>('GET', `/projects/${asStatic.project.id}`, { token: admin })).body.preset,
    ).toBe('static');
    expect((await viaEdge('as-static.localhost')).body).toContain('<h1>from the files</h1>');
    expect(await logOf(asStatic.project.id, asStatic.deploymentId)).toContain('Static HTML (static site from .)');
  });

  it("an environment's instances, memory and CPU limits reach its next deployment's processes", async () => {
    const { project, deploymentId } = await create('Scaled', {
      'package.json': JSON.stringify({ name: 'scaled', scripts: { start: 'node server.js' } }),
      // Each copy says which port it has (in the sandbox every app is pid 2).
      'server.js': `require('node:http').createServer((q, s) => s.end('port ' + process.env.PORT)).listen(Number(process.env.PORT), process.env.HOST);`,
    });
    expect((await settledOf(project.id, deploymentId)).status).toBe('ready');
    const envId = project.environments[0]?.id ?? 0;
    const settings = await api.call('PUT', `/projects/${project.id}/environments/${envId}/settings`, {
      token: admin,
      body: { instances: 3, memory_mb: 192, cpu_percent: 40 },
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    const second = await settledOf(project.id, await redeploy(project.id));
    expect(second.status, second.error ?? '').toBe('ready');

    type Container = { name: string; state: string; pid: number | null };
    const { body } = await api.call<{ containers: Container[] }>(
      'GET',
      `/projects/${project.id}/environments/${envId}/containers`,
      { token: admin },
    );
    expect(body.containers.map((c) => [c.name, c.state])).toEqual([
      ['web.0', 'running'],
      ['web.1', 'running'],
      ['web.2', 'running'],
    ]);
    // The edge takes turns between the three.
    const answers = new Set<string>();
    for (let i = 0; i < 9; i++) answers.add((await viaEdge('scaled.localhost')).body);
    expect(answers.size).toBe(3);

    // Each process runs in a cgroup with the environment's limits, where the machine has the controllers.
    const support = detectCgroups({ setting: 'auto' });
    const controllers = support.kind === 'v1' ? Object.keys(support.parents) : support.kind === 'v2' ? support.controllers : [];
    if (!controllers.includes('memory')) {
      console.warn(`cgroup limits not checked: ${support.kind === 'none' ? support.reason : 'no memory controller'}`);
      return;
    }
    for (const container of body.containers) {
      const limits = cgroupLimits(container.pid ?? 0);
      expect(limits.memoryBytes).toBe(192 * 1024 * 1024);
      if (controllers.includes('cpu')) expect(limits.cpuShare).toBeCloseTo(0.4, 5);
    }
  });
});

describe('POST /projects/detect: how a git URL would build, before a project exists', { timeout: 120_000 }, () => {
  it('answers the detected preset and commands of the branch, the root directory and what the repository decides', async () => {
    const repo = await git.createRepo('acme/detect-me', {
      'package.json': JSON.stringify({
        name: 'detect-me',
        scripts: { build: 'node build.js', start: 'node server.js' },
        dependencies: {},
      }),
      'package-lock.json': JSON.stringify({ name: 'detect-me', lockfileVersion: 3, packages: {} }),
      'server.js': RECORDING_SERVER('x'),
      'site/index.html': '<h1>site</h1>',
      'site/launchbay.json': JSON.stringify({ buildCommand: null, outputDirectory: '.' }),
    });
    const before = (await api.call<{ total: number }>('GET', '/projects', { token: admin })).body.total;
    const detected = await api.call('POST', '/projects/detect', {
      token: admin,
      body: { git_url: repo.url, branch: 'main' },
    });
    expect(detected.status, JSON.stringify(detected.body)).toBe(200);
    expect(detected.body).toEqual({
      branch: 'main',
      commit_sha: await repo.head(),
      preset: 'node',
      preset_name: 'Node.js',
      install_command: 'npm ci',
      build_command: 'npm run build',
      start_command: 'npm run start',
      output_directory: null,
      port: null,
      has_launchbay_json: false,
      has_procfile: false,
      errors: [],
    });
    const folder = await api.call<{ preset: string; has_launchbay_json: boolean; build_command: string | null }>(
      'POST',
      '/projects/detect',
      { token: admin, body: { git_url: repo.url, branch: 'main', root_directory: './site/' } },
    );
    expect(folder.status, JSON.stringify(folder.body)).toBe(200);
    expect(folder.body).toMatchObject({ preset: 'static', has_launchbay_json: true, build_command: null });
    // Nothing is created by looking.
    expect((await api.call<{ total: number }>('GET', '/projects', { token: admin })).body.total).toBe(before);
  });

  it('answers 400 naming the field, 401 without a session and 403 for a reader', async () => {
    const repo = await git.createRepo('acme/detect-errors', { 'index.html': 'x' });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ branch: 'main' }, 'git_url', /Git URL is required/],
      [{ git_url: repo.url, branch: '-bad' }, 'branch', /Not a valid branch name/],
      [{ git_url: 'file:///etc', branch: 'main' }, 'git_url', /./],
      [{ git_url: repo.url, branch: 'main', root_directory: '../up' }, 'root_directory', /./],
      [{ git_url: repo.url, branch: 'nope' }, 'branch', /nope/],
      [
        { git_url: repo.url, branch: 'main', root_directory: 'missing' },
        'root_directory',
        /The folder missing does not exist on main/,
      ],
      [{ git_url: git.urlFor('acme/not-there'), branch: 'main' }, 'git_url', /does not exist/],
      [{ git_url: 'ssh://git@127.0.0.1:22/acme/site.git', branch: 'main' }, 'git_url', /deploy key the project gets/],
    ];
    for (const [body, field, message] of cases) {
      const response = await api.call<ApiError>('POST', '/projects/detect', { token: admin, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(
        response.body.errors?.map((e) => e.path),
        JSON.stringify(body),
      ).toEqual([field]);
      expect(response.body.errors?.[0]?.message, JSON.stringify(body)).toMatch(message);
    }
    const body = { git_url: repo.url, branch: 'main' };
    expect((await api.call('POST', '/projects/detect', { body })).status).toBe(401);
    const reader = await api.userWithRole(admin, 'reader');
    expect((await api.call('POST', '/projects/detect', { token: reader.token, body })).status).toBe(403);
    // A user (not an admin) may not make the platform reach a loopback host, as for a create.
    const user = await api.userWithRole(admin, 'user');
    const asUser = await api.call<ApiError>('POST', '/projects/detect', { token: user.token, body });
    const create = await api.call<ApiError>('POST', '/projects', { token: user.token, body: { ...body, name: 'Not Made' } });
    expect(asUser.status).toBe(400);
    expect(asUser.body.errors?.map((e) => e.path)).toEqual(['git_url']);
    expect(asUser.body.detail).toBe(create.body.detail);
  });
});

/** The memory limit (bytes) and CPU share (quota / period) of the cgroups a process is in, v1 or v2. */
function cgroupLimits(pid: number): { memoryBytes: number | null; cpuShare: number | null } {
  const lines = fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8').trim().split('\n');
  const dirOf = (controller: string): string | null => {
    for (const line of lines) {
      const [, list = '', where = ''] = line.split(':');
      if (list === '' && fs.existsSync(`/sys/fs/cgroup${where}/cgroup.controllers`)) return `/sys/fs/cgroup${where}`;
      if (list.split(',').includes(controller)) {
        for (const mount of [controller, list])
          if (fs.existsSync(`/sys/fs/cgroup/${mount}${where}`)) return `/sys/fs/cgroup/${mount}${where}`;
      }
    }
    return null;
  };
  const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : null);
  const memoryDir = dirOf('memory');
  const memory = memoryDir ? (read(`${memoryDir}/memory.max`) ?? read(`${memoryDir}/memory.limit_in_bytes`)) : null;
  const cpuDir = dirOf('cpu');
  let cpuShare: number | null = null;
  const cpuMax = cpuDir ? read(`${cpuDir}/cpu.max`) : null;
  if (cpuMax) {
    const [quota = 'max', period = '100000'] = cpuMax.split(' ');
    cpuShare = quota === 'max' ? null : Number(quota) / Number(period);
  } else if (cpuDir) {
    const quota = Number(read(`${cpuDir}/cpu.cfs_quota_us`));
    cpuShare = quota > 0 ? quota / Number(read(`${cpuDir}/cpu.cfs_period_us`)) : null;
  }
  return { memoryBytes: memory === null || memory === 'max' ? null : Number(memory), cpuShare };
}
