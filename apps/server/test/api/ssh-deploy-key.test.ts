import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type GitServer, type SshServer, sshdBinary, startGitServer, startSshServer } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, apiClient } from '../helpers/api';
import { getThroughEdge } from '../helpers/edge';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';
import { settledDeployment } from '../helpers/projects';

/**
 * A project from an ssh:// repository, against a real OpenSSH server: the platform makes the
 * deploy key, shows its public half to add to the repository, keeps the private half sealed, and
 * deploys once the key is allowed. Needs sshd (Debian's openssh-server, installed by .ci/run).
 */

type Project = {
  id: number;
  slug: string;
  deploy_key_public: string | null;
  last_deployment: { id: number; status: string } | null;
};
type Deployment = { id: number; status: string; error: string | null; commit_sha: string | null };

const hasSshd = sshdBinary() !== undefined;
let platform: TestPlatform;
let api: Api;
let admin: string;
let git: GitServer;
let ssh: SshServer;

const settledOf = (projectId: number, deploymentId: number) => settledDeployment<Deployment>(api, admin, projectId, deploymentId);

beforeAll(async () => {
  if (!hasSshd) return;
  git = await startGitServer();
  ssh = await startSshServer();
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(async () => {
  await platform?.close();
  await ssh?.close();
  await git?.close();
});

describe.skipIf(!hasSshd)('a project from an ssh repository', { timeout: 120_000 }, () => {
  it('gets a deploy key shown to add, kept sealed, and deploys once the repository allows it', async () => {
    const repo = await git.createRepo('acme/over-ssh', {
      'package.json': JSON.stringify({ name: 'over-ssh', scripts: { start: 'node server.js' } }),
      'server.js': `require('node:http').createServer((q, s) => s.end('fetched over ssh')).listen(Number(process.env.PORT), process.env.HOST);`,
    });
    const url = ssh.url(path.join(git.root, 'acme/over-ssh.git'));

    // A token has no place with an ssh address.
    const withToken = await api.call<{ errors: { path: string }[] }>('POST', '/projects', {
      token: admin,
      body: { name: 'Over SSH', git_url: url, git_token: 'x', branch: 'main' },
    });
    expect(withToken.status).toBe(400);
    expect(withToken.body.errors.map((e) => e.path)).toEqual(['git_token']);

    // The new key cannot be allowed yet: the project is created with it, and nothing is deployed.
    const created = await api.call<Project>('POST', '/projects', {
      token: admin,
      body: { name: 'Over SSH', git_url: url, branch: 'main' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const publicKey = created.body.deploy_key_public ?? '';
    expect(publicKey).toMatch(/^ssh-ed25519 [A-Za-z0-9+/]+=* launchbay$/);
    expect(created.body.last_deployment).toBeNull();
    expect(JSON.stringify(created.body)).not.toContain('PRIVATE KEY');
    const read = await api.call<Project>('GET', `/projects/${created.body.id}`, { token: admin });
    expect(read.body.deploy_key_public).toBe(publicKey);
    expect(JSON.stringify(read.body)).not.toContain('PRIVATE KEY');

    // At rest the private half is sealed: not in clear, and it opens to the key whose public half was shown.
    const { rows } = await platform.ctx.pool.query<{ sealed: string }>(
      'SELECT deploy_key_sealed AS sealed FROM projects WHERE id = $1',
      [created.body.id],
    );
    const sealed = rows[0]?.sealed ?? '';
    expect(sealed).not.toContain('PRIVATE KEY');
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-deploy-key-'));
    try {
      fs.writeFileSync(path.join(keyDir, 'key'), platform.ctx.box.open(sealed), { mode: 0o600 });
      const derived = execFileSync('ssh-keygen', ['-y', '-f', path.join(keyDir, 'key')], { encoding: 'utf8' });
      expect(derived.trim().split(' ').slice(0, 2)).toEqual(publicKey.split(' ').slice(0, 2));
    } finally {
      fs.rmSync(keyDir, { recursive: true, force: true });
    }

    // Before the key is allowed, a deployment fails at the clone, saying the key was refused.
    const refused = await api.call<{ deployment_id: number }>('POST', `/projects/${created.body.id}/trigger-pipeline`, {
      token: admin,
      body: {},
    });
    expect(refused.status).toBe(202);
    const failed = await settledOf(created.body.id, refused.body.deployment_id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe(
      "Authentication failed: 127.0.0.1 refused the deploy key (add its public key to the repository's deploy keys)",
    );

    // The repository allows the key (as a deploy key added on the host): the next deployment fetches over ssh and goes live.
    ssh.authorize(publicKey);
    const triggered = await api.call<{ deployment_id: number }>('POST', `/projects/${created.body.id}/trigger-pipeline`, {
      token: admin,
      body: {},
    });
    const ready = await settledOf(created.body.id, triggered.body.deployment_id);
    expect(ready.status, ready.error ?? '').toBe('ready');
    expect(ready.commit_sha).toBe(await repo.head());
    const served = await getThroughEdge(platform.ctx.edge.port(), `${created.body.slug}.localhost`);
    expect(served.body).toBe('fetched over ssh');
    // The host key was trusted on first use and kept for the next fetches.
    const knownHosts = fs.readFileSync(path.join(platform.dataDir, 'ssh', 'known_hosts'), 'utf8');
    expect(knownHosts).toContain(ssh.hostKey);
  });
});
