import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_NOTIFICATION_PREFERENCES } from '@launchbay/contract';
import {
  type GitHostStandIn,
  type GitServer,
  type Pebble,
  startGitHostStandIn,
  startGitServer,
  startPebble,
  type TestRepo,
} from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Api, apiClient, type Role, TEST_PASSWORD, uniqueEmail } from '../helpers/api';
import { auditRowsAfter, createKey, lastAuditId } from '../helpers/audit';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';
import { insertDeployment, insertProject, waitForPipelines } from '../helpers/projects';
import { totp } from '../helpers/totp';

/**
 * Walks the OpenAPI document: every mutating operation in it must have a case below, and each
 * case makes one valid call and finds exactly one audit row describing it. A new mutating route
 * fails the first test until a case for it is added here.
 */

type Answer = Record<string, unknown>;
type Prepared = {
  /** The path under /api, with real ids. */
  path: string;
  token?: string;
  body?: unknown;
  status: number;
  /** The id the row must name as its target: fixed, or read from the answer. */
  targetId: string | null | ((answer: Answer) => string);
  /** Whose call it is: the row's actor_user_id. */
  actorUserId: number;
  /** Path parameters the row's summary must repeat. */
  params?: Record<string, string | number>;
  /** Values that must appear in no audit row (passwords, codes, tokens). */
  secrets?: string[];
};
type Case = { action: string; targetType: string | null; prepare: () => Promise<Prepared> };

const MUTATING = ['post', 'put', 'patch', 'delete'];
const USER_AGENT = 'audit-coverage/1.0';

let platform: TestPlatform;
let api: Api;
let admin: string;
let adminId: number;
let openapi: { paths: Record<string, Record<string, unknown>> };
/** Stands in for Slack: answers every webhook call 200 'ok'. */
let slack: http.Server;
let slackUrl: string;
const SLACK_SECRET = 'coverage-webhook-secret-42';
/** The git host projects are created from: a real repository behind a token. */
let git: GitServer;
let repo: TestRepo;
const GIT_TOKEN = 'coverage-git-token-77';
/** Stand-ins for GitHub's and GitLab's APIs, for the git provider routes. */
let github: GitHostStandIn;
let gitlab: GitHostStandIn;
const GITHUB_TOKEN = 'ghp_coverage_token_4711';
const GITLAB_TOKEN = 'glpat-coverage-token-4711';
const GITLAB_APP = { clientId: 'coverage-app', clientSecret: 'coverage-app-secret-9' };
let pebble: Pebble;
let pebbleCa: string;

beforeAll(async () => {
  slack = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  await new Promise<void>((resolve) => slack.listen(0, '127.0.0.1', resolve));
  slackUrl = `http://127.0.0.1:${(slack.address() as AddressInfo).port}/services/T0/B0/${SLACK_SECRET}`;
  git = await startGitServer({ token: GIT_TOKEN });
  repo = await git.createRepo('acme/x', { 'index.html': 'hi' });
  github = await startGitHostStandIn({ kind: 'github', token: GITHUB_TOKEN });
  await github.createRepo('octo-user/site', { 'index.html': 'hi' });
  gitlab = await startGitHostStandIn({ kind: 'gitlab', token: GITLAB_TOKEN, oauthApp: GITLAB_APP });
  // A CA for the domain routes: Pebble validating everything (these cases are about the audit rows).
  pebbleCa = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lb-coverage-')), 'pebble.pem');
  pebble = await startPebble({ httpPort: 80, alwaysValid: true, caFile: pebbleCa });
  platform = await startTestPlatform({ ACME_CA_FILE: pebbleCa });
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
  adminId = (await api.call<{ id: number }>('GET', '/user/me', { token: admin })).body.id;
  const acme = await api.call('PUT', '/settings', { token: admin, body: { acme_directory_url: pebble.directoryUrl } });
  expect(acme.status).toBe(200);
  const docs = await api.call<typeof openapi>('GET', '/docs/json');
  expect(docs.status).toBe(200);
  openapi = docs.body;
});
afterAll(async () => {
  // The deployments the cases started (create, trigger, rollback) finish before the platform stops.
  if (platform) await waitForPipelines(platform.ctx.pool);
  await platform?.close();
  await git?.close();
  await github?.close();
  await gitlab?.close();
  await pebble?.close();
  await new Promise((resolve) => slack.close(resolve));
});

const person = (role: Role) => api.userWithRole(admin, role);

async function userWithRoles(roles: Role[]) {
  const email = uniqueEmail('multi');
  const created = await api.call<{ id: number }>('POST', '/users', {
    token: admin,
    body: { username: 'Multi Role', email, password: TEST_PASSWORD, roles },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id, email, password: TEST_PASSWORD, token: await api.login(email, TEST_PASSWORD) };
}

/** A user with MFA confirmed using the current step's code: the next usable code is `totp(secret, 1)`. */
async function userWithMfa() {
  const p = await person('user');
  const setup = await api.call<{ secret: string }>('POST', '/users/me/mfa/setup', { token: p.token });
  expect(setup.status).toBe(200);
  const verified = await api.call('POST', '/users/me/mfa/verify', {
    token: p.token,
    body: { code: await totp(setup.body.secret) },
  });
  expect(verified.status).toBe(200);
  return { ...p, secret: setup.body.secret };
}

const answerId = (answer: Answer) => String(answer.id);

let projectCounter = 0;
/** A project (production environment only) in the database, deploying from the test repository. */
const coverageProject = (name = 'Coverage') =>
  insertProject(platform.ctx.pool, {
    name,
    slug: `coverage-${Date.now()}-${++projectCounter}`,
    git: { url: repo.url, tokenSealed: platform.ctx.box.seal(GIT_TOKEN) },
  });

/** A project whose production environment serves a static deployment (no process) that went live. */
async function servingProject() {
  const project = await coverageProject('Serving');
  const environmentId = project.environments.production ?? 0;
  const current = await insertDeployment(platform.ctx.pool, {
    projectId: project.id,
    environmentId,
    status: 'ready',
    artifact: { dataDir: platform.dataDir },
    current: true,
  });
  return { project, environmentId, current };
}

const SMTP_PASSWORD = 'Smtp-Password-Secret-7';
const emailConfig = () => ({
  smtp_host: '127.0.0.1',
  smtp_port: 2525,
  username: 'mailer',
  password: SMTP_PASSWORD,
  from_address: 'launchbay@example.com',
  to_addresses: ['ops@example.com'],
  tls_mode: 'None',
});

async function provider(type: 'email' | 'slack'): Promise<number> {
  const config = type === 'email' ? emailConfig() : { webhook_url: slackUrl, channel: '#alerts' };
  const created = await api.call<{ id: number }>('POST', `/notification-providers/${type}`, {
    token: admin,
    body: { name: `${type} provider`, config },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

/** A project with a console cron job on its production environment. */
async function coverageCron() {
  const project = await coverageProject();
  const envId = project.environments.production ?? 0;
  const created = await api.call<{ id: number }>('POST', `/projects/${project.id}/environments/${envId}/crons`, {
    token: admin,
    body: { path: '/', schedule: '@daily' },
  });
  return { project, envId, cronId: created.body.id };
}

let providerCounter = 0;
/** A GitHub provider (by token, against the stand-in) and its connection. */
async function githubProvider() {
  const created = await api.call<{ id: number }>('POST', '/git-providers/github/pat', {
    token: admin,
    body: { name: `GitHub ${++providerCounter}`, token: GITHUB_TOKEN, base_url: github.baseUrl },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const connections = await api.call<{ connections: { id: number }[] }>(
    'GET',
    `/git-connections?provider_id=${created.body.id}`,
    {
      token: admin,
    },
  );
  return { providerId: created.body.id, connectionId: connections.body.connections[0]?.id ?? 0 };
}

const CASES: Record<string, Case> = {
  'POST /api/git-providers/github/pat': {
    action: 'git_providers.github.pat.create',
    targetType: 'git_provider',
    prepare: async () => ({
      path: '/git-providers/github/pat',
      token: admin,
      body: { name: 'GitHub by token', token: GITHUB_TOKEN, base_url: github.baseUrl },
      status: 201,
      targetId: answerId,
      actorUserId: adminId,
      secrets: [GITHUB_TOKEN],
    }),
  },
  'POST /api/git-providers/gitlab/pat': {
    action: 'git_providers.gitlab.pat.create',
    targetType: 'git_provider',
    prepare: async () => ({
      path: '/git-providers/gitlab/pat',
      token: admin,
      body: { name: 'GitLab by token', token: GITLAB_TOKEN, base_url: gitlab.baseUrl },
      status: 201,
      targetId: answerId,
      actorUserId: adminId,
      secrets: [GITLAB_TOKEN],
    }),
  },
  'POST /api/git-providers/gitlab/oauth': {
    action: 'git_providers.gitlab.oauth.create',
    targetType: 'git_provider',
    prepare: async () => ({
      path: '/git-providers/gitlab/oauth',
      token: admin,
      body: {
        name: 'GitLab by OAuth',
        base_url: gitlab.baseUrl,
        ...{ client_id: GITLAB_APP.clientId, client_secret: GITLAB_APP.clientSecret },
      },
      status: 201,
      targetId: null,
      actorUserId: adminId,
      secrets: [GITLAB_APP.clientSecret],
    }),
  },
  'POST /api/git-providers/{provider_id}/authorize': {
    action: 'git_providers.authorize',
    targetType: 'git_provider',
    prepare: async () => {
      const started = await api.call<{ provider: { id: number } }>('POST', '/git-providers/gitlab/oauth', {
        token: admin,
        body: {
          name: 'GitLab to authorise',
          base_url: gitlab.baseUrl,
          client_id: GITLAB_APP.clientId,
          client_secret: GITLAB_APP.clientSecret,
        },
      });
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      const providerId = started.body.provider.id;
      return {
        path: `/git-providers/${providerId}/authorize`,
        token: admin,
        status: 200,
        targetId: String(providerId),
        actorUserId: adminId,
        params: { provider_id: providerId },
      };
    },
  },
  'DELETE /api/git-providers/{provider_id}': {
    action: 'git_providers.delete',
    targetType: 'git_provider',
    prepare: async () => {
      const { providerId } = await githubProvider();
      return {
        path: `/git-providers/${providerId}`,
        token: admin,
        status: 200,
        targetId: String(providerId),
        actorUserId: adminId,
        params: { provider_id: providerId },
      };
    },
  },
  'DELETE /api/git-providers/{provider_id}/safe-delete': {
    action: 'git_providers.delete',
    targetType: 'git_provider',
    prepare: async () => {
      const { providerId } = await githubProvider();
      return {
        path: `/git-providers/${providerId}/safe-delete`,
        token: admin,
        status: 200,
        targetId: String(providerId),
        actorUserId: adminId,
        params: { provider_id: providerId },
      };
    },
  },
  'DELETE /api/git-connections/{connection_id}': {
    action: 'git_connections.delete',
    targetType: 'git_connection',
    prepare: async () => {
      const { connectionId } = await githubProvider();
      return {
        path: `/git-connections/${connectionId}`,
        token: admin,
        status: 200,
        targetId: String(connectionId),
        actorUserId: adminId,
        params: { connection_id: connectionId },
      };
    },
  },
  'POST /api/git-connections/{connection_id}/sync': {
    action: 'git_connections.sync',
    targetType: 'git_connection',
    prepare: async () => {
      const { connectionId } = await githubProvider();
      return {
        path: `/git-connections/${connectionId}/sync`,
        token: admin,
        status: 200,
        targetId: String(connectionId),
        actorUserId: adminId,
        params: { connection_id: connectionId },
      };
    },
  },
  'POST /api/git-connections/{connection_id}/update-token': {
    action: 'git_connections.update_token',
    targetType: 'git_connection',
    prepare: async () => {
      const { connectionId } = await githubProvider();
      return {
        path: `/git-connections/${connectionId}/update-token`,
        token: admin,
        body: { token: GITHUB_TOKEN },
        status: 200,
        targetId: String(connectionId),
        actorUserId: adminId,
        params: { connection_id: connectionId },
        secrets: [GITHUB_TOKEN],
      };
    },
  },
  'POST /api/auth/login': {
    action: 'auth.login',
    targetType: 'user',
    prepare: async () => {
      const p = await person('reader');
      return {
        path: '/auth/login',
        body: { email: p.email, password: p.password },
        status: 200,
        targetId: String(p.id),
        actorUserId: p.id,
        secrets: [p.password],
      };
    },
  },
  'POST /api/auth/verify-mfa': {
    action: 'auth.verify_mfa',
    targetType: 'user',
    prepare: async () => {
      const p = await userWithMfa();
      const login = await api.call<{ mfa_token: string }>('POST', '/auth/login', {
        body: { email: p.email, password: p.password },
      });
      expect(login.status).toBe(200);
      const code = await totp(p.secret, 1);
      return {
        path: '/auth/verify-mfa',
        body: { code, mfa_token: login.body.mfa_token },
        status: 200,
        targetId: String(p.id),
        actorUserId: p.id,
        secrets: [code, login.body.mfa_token, p.secret],
      };
    },
  },
  'POST /api/logout': {
    action: 'logout',
    targetType: 'user',
    prepare: async () => {
      const p = await person('reader');
      return { path: '/logout', token: p.token, status: 204, targetId: String(p.id), actorUserId: p.id, secrets: [p.token] };
    },
  },
  'PATCH /api/users/me': {
    action: 'users.me.update',
    targetType: 'user',
    prepare: async () => {
      const p = await person('reader');
      return {
        path: '/users/me',
        token: p.token,
        body: { username: 'New Name', current_password: p.password, new_password: 'Brand-New-Password-9' },
        status: 200,
        targetId: String(p.id),
        actorUserId: p.id,
        secrets: [p.password, 'Brand-New-Password-9'],
      };
    },
  },
  'POST /api/users/me/mfa/setup': {
    action: 'users.me.mfa.setup',
    targetType: 'user',
    prepare: async () => {
      const p = await person('user');
      return { path: '/users/me/mfa/setup', token: p.token, status: 200, targetId: String(p.id), actorUserId: p.id };
    },
  },
  'POST /api/users/me/mfa/verify': {
    action: 'users.me.mfa.verify',
    targetType: 'user',
    prepare: async () => {
      const p = await person('user');
      const setup = await api.call<{ secret: string }>('POST', '/users/me/mfa/setup', { token: p.token });
      expect(setup.status).toBe(200);
      const code = await totp(setup.body.secret);
      return {
        path: '/users/me/mfa/verify',
        token: p.token,
        body: { code },
        status: 200,
        targetId: String(p.id),
        actorUserId: p.id,
        secrets: [code, setup.body.secret],
      };
    },
  },
  'DELETE /api/users/me/mfa': {
    action: 'users.me.mfa.delete',
    targetType: 'user',
    prepare: async () => {
      const p = await userWithMfa();
      const code = await totp(p.secret, 1);
      return {
        path: '/users/me/mfa',
        token: p.token,
        body: { code },
        status: 204,
        targetId: String(p.id),
        actorUserId: p.id,
        secrets: [code, p.secret],
      };
    },
  },
  'POST /api/users': {
    action: 'users.create',
    targetType: 'user',
    prepare: async () => ({
      path: '/users',
      token: admin,
      body: { username: 'Created', email: uniqueEmail('created'), password: 'Created-Password-1', roles: ['user'] },
      status: 201,
      targetId: answerId,
      actorUserId: adminId,
      secrets: ['Created-Password-1'],
    }),
  },
  'PATCH /api/users/{user_id}': {
    action: 'users.update',
    targetType: 'user',
    prepare: async () => {
      const p = await person('user');
      return {
        path: `/users/${p.id}`,
        token: admin,
        body: { username: 'Renamed', password: 'Reset-Password-77' },
        status: 200,
        targetId: String(p.id),
        actorUserId: adminId,
        params: { user_id: p.id },
        secrets: ['Reset-Password-77'],
      };
    },
  },
  'DELETE /api/users/{user_id}': {
    action: 'users.delete',
    targetType: 'user',
    prepare: async () => {
      const p = await person('user');
      return {
        path: `/users/${p.id}`,
        token: admin,
        status: 204,
        targetId: String(p.id),
        actorUserId: adminId,
        params: { user_id: p.id },
      };
    },
  },
  'POST /api/users/{user_id}/roles': {
    action: 'users.roles.create',
    targetType: 'user',
    prepare: async () => {
      const p = await person('user');
      return {
        path: `/users/${p.id}/roles`,
        token: admin,
        body: { role_type: 'reader' },
        status: 200,
        targetId: String(p.id),
        actorUserId: adminId,
        params: { user_id: p.id },
      };
    },
  },
  'DELETE /api/users/{user_id}/roles/{role_type}': {
    action: 'users.roles.delete',
    targetType: 'user',
    prepare: async () => {
      const p = await userWithRoles(['user', 'reader']);
      return {
        path: `/users/${p.id}/roles/reader`,
        token: admin,
        status: 200,
        targetId: String(p.id),
        actorUserId: adminId,
        params: { user_id: p.id, role_type: 'reader' },
      };
    },
  },
  'POST /api/api-keys': {
    action: 'api_keys.create',
    targetType: 'api_key',
    prepare: async () => ({
      path: '/api-keys',
      token: admin,
      body: { name: 'coverage key', permissions: ['projects:read'], expires_at: new Date(Date.now() + 86_400_000).toISOString() },
      status: 201,
      targetId: answerId,
      actorUserId: adminId,
    }),
  },
  'PUT /api/api-keys/{id}': {
    action: 'api_keys.update',
    targetType: 'api_key',
    prepare: async () => {
      const key = await createKey(api, admin, ['projects:read']);
      return {
        path: `/api-keys/${key.id}`,
        token: admin,
        body: { name: 'renamed key', permissions: ['projects:read', 'projects:write'] },
        status: 200,
        targetId: String(key.id),
        actorUserId: adminId,
        params: { id: key.id },
        secrets: [key.secret],
      };
    },
  },
  'DELETE /api/api-keys/{id}': {
    action: 'api_keys.delete',
    targetType: 'api_key',
    prepare: async () => {
      const key = await createKey(api, admin, ['projects:read']);
      const path = `/api-keys/${key.id}`;
      return {
        path,
        token: admin,
        status: 204,
        targetId: String(key.id),
        actorUserId: adminId,
        params: { id: key.id },
        secrets: [key.secret],
      };
    },
  },
  'POST /api/api-keys/{id}/activate': {
    action: 'api_keys.activate',
    targetType: 'api_key',
    prepare: async () => {
      const key = await createKey(api, admin, ['projects:read']);
      expect((await api.call('POST', `/api-keys/${key.id}/deactivate`, { token: admin })).status).toBe(200);
      const path = `/api-keys/${key.id}/activate`;
      return {
        path,
        token: admin,
        status: 200,
        targetId: String(key.id),
        actorUserId: adminId,
        params: { id: key.id },
        secrets: [key.secret],
      };
    },
  },
  'POST /api/api-keys/{id}/deactivate': {
    action: 'api_keys.deactivate',
    targetType: 'api_key',
    prepare: async () => {
      const key = await createKey(api, admin, ['projects:read']);
      const path = `/api-keys/${key.id}/deactivate`;
      return {
        path,
        token: admin,
        status: 200,
        targetId: String(key.id),
        actorUserId: adminId,
        params: { id: key.id },
        secrets: [key.secret],
      };
    },
  },
  'PUT /api/notification-preferences': {
    action: 'notification_preferences.update',
    targetType: 'notification_preferences',
    prepare: async () => ({
      path: '/notification-preferences',
      token: admin,
      body: { preferences: { ...DEFAULT_NOTIFICATION_PREFERENCES, minimum_severity: 'critical', error_threshold: 25 } },
      status: 200,
      targetId: null,
      actorUserId: adminId,
    }),
  },
  'POST /api/notification-providers/email': {
    action: 'notification_providers.email.create',
    targetType: 'notification_provider',
    prepare: async () => ({
      path: '/notification-providers/email',
      token: admin,
      body: { name: 'Ops mail', config: emailConfig() },
      status: 201,
      targetId: answerId,
      actorUserId: adminId,
      secrets: [SMTP_PASSWORD],
    }),
  },
  'POST /api/notification-providers/slack': {
    action: 'notification_providers.slack.create',
    targetType: 'notification_provider',
    prepare: async () => ({
      path: '/notification-providers/slack',
      token: admin,
      body: { name: 'Ops Slack', config: { webhook_url: slackUrl, channel: '#ops' } },
      status: 201,
      targetId: answerId,
      actorUserId: adminId,
      secrets: [SLACK_SECRET],
    }),
  },
  'PUT /api/notification-providers/email/{id}': {
    action: 'notification_providers.email.update',
    targetType: 'notification_provider',
    prepare: async () => {
      const id = await provider('email');
      return {
        path: `/notification-providers/email/${id}`,
        token: admin,
        body: { name: 'Renamed mail', config: { ...emailConfig(), smtp_port: 2526 } },
        status: 200,
        targetId: String(id),
        actorUserId: adminId,
        params: { id },
        secrets: [SMTP_PASSWORD],
      };
    },
  },
  'PUT /api/notification-providers/slack/{id}': {
    action: 'notification_providers.slack.update',
    targetType: 'notification_provider',
    prepare: async () => {
      const id = await provider('slack');
      return {
        path: `/notification-providers/slack/${id}`,
        token: admin,
        body: { name: 'Renamed Slack', config: { webhook_url: slackUrl, channel: '#renamed' } },
        status: 200,
        targetId: String(id),
        actorUserId: adminId,
        params: { id },
        secrets: [SLACK_SECRET],
      };
    },
  },
  'PUT /api/notification-providers/{id}': {
    action: 'notification_providers.update',
    targetType: 'notification_provider',
    prepare: async () => {
      const id = await provider('slack');
      return {
        path: `/notification-providers/${id}`,
        token: admin,
        body: { name: 'Either type', enabled: false, config: { webhook_url: slackUrl, channel: null } },
        status: 200,
        targetId: String(id),
        actorUserId: adminId,
        params: { id },
        secrets: [SLACK_SECRET],
      };
    },
  },
  'DELETE /api/notification-providers/{id}': {
    action: 'notification_providers.delete',
    targetType: 'notification_provider',
    prepare: async () => {
      const id = await provider('email');
      return {
        path: `/notification-providers/${id}`,
        token: admin,
        status: 204,
        targetId: String(id),
        actorUserId: adminId,
        params: { id },
      };
    },
  },
  'POST /api/notification-providers/{id}/test': {
    action: 'notification_providers.test',
    targetType: 'notification_provider',
    prepare: async () => {
      const id = await provider('slack');
      const path = `/notification-providers/${id}/test`;
      return {
        path,
        token: admin,
        status: 200,
        targetId: String(id),
        actorUserId: adminId,
        params: { id },
        secrets: [SLACK_SECRET],
      };
    },
  },
  'POST /api/projects': {
    action: 'projects.create',
    targetType: 'project',
    prepare: async () => ({
      path: '/projects',
      token: admin,
      body: { name: `Created ${++projectCounter}`, git_url: repo.url, git_token: GIT_TOKEN, branch: 'main' },
      status: 201,
      targetId: answerId,
      actorUserId: adminId,
      secrets: [GIT_TOKEN],
    }),
  },
  'POST /api/projects/detect': {
    action: 'projects.detect',
    targetType: 'project',
    prepare: async () => ({
      path: '/projects/detect',
      token: admin,
      body: { git_url: repo.url, git_token: GIT_TOKEN, branch: 'main' },
      status: 200,
      targetId: null,
      actorUserId: adminId,
      secrets: [GIT_TOKEN],
    }),
  },
  'DELETE /api/projects/{id}': {
    action: 'projects.delete',
    targetType: 'project',
    prepare: async () => {
      const { project } = await servingProject();
      return {
        path: `/projects/${project.id}`,
        token: admin,
        status: 204,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id },
      };
    },
  },
  'POST /api/projects/{id}/settings': {
    // A POST that changes the settings: actionFor names it like a creation (see the report).
    action: 'projects.settings.update',
    targetType: 'project',
    prepare: async () => {
      const project = await coverageProject();
      return {
        path: `/projects/${project.id}/settings`,
        token: admin,
        body: { name: 'Renamed project' },
        status: 200,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id },
      };
    },
  },
  'PATCH /api/projects/{id}/deployment-config': {
    action: 'projects.deployment_config.update',
    targetType: 'project',
    prepare: async () => {
      const project = await coverageProject();
      return {
        path: `/projects/${project.id}/deployment-config`,
        token: admin,
        body: { build_command: 'npm run build', output_directory: 'dist', port: 8080, automatic_deploy: false },
        status: 200,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id },
      };
    },
  },
  'POST /api/projects/{id}/automatic-deploy': {
    action: 'projects.automatic_deploy.update',
    targetType: 'project',
    prepare: async () => {
      const project = await coverageProject();
      return {
        path: `/projects/${project.id}/automatic-deploy`,
        token: admin,
        body: { enabled: false },
        status: 200,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id },
      };
    },
  },
  'POST /api/projects/{id}/previews/{environment_id}/approve': {
    action: 'projects.previews.approve',
    targetType: 'project',
    prepare: async () => {
      const project = await coverageProject();
      // A fork's pull request waiting for approval, as its webhook leaves it.
      const { rows } = await platform.ctx.pool.query<{ id: number }>(
        `INSERT INTO environments (project_id, name, slug, branch, pr_number, pr_title, pr_head_sha, pr_from_fork, pr_state)
         VALUES ($1, 'PR #5', 'pr-5', 'main', 5, 'From a fork', $2, true, 'awaiting_approval') RETURNING id`,
        [project.id, await repo.head()],
      );
      const environmentId = rows[0]?.id ?? 0;
      return {
        path: `/projects/${project.id}/previews/${environmentId}/approve`,
        token: admin,
        status: 200,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, environment_id: environmentId },
      };
    },
  },
  'POST /api/projects/{id}/git': {
    action: 'projects.git.webhook',
    targetType: 'project',
    prepare: async () => {
      const { providerId } = await githubProvider();
      const repository = await api.call<{ id: number }>('GET', '/repositories/octo-user/site', { token: admin });
      expect(repository.status, `provider ${providerId}`).toBe(200);
      const created = await api.call<{ id: number }>('POST', '/projects', {
        token: admin,
        body: { name: 'From GitHub', repository_id: repository.body.id, branch: 'main' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return {
        path: `/projects/${created.body.id}/git`,
        token: admin,
        status: 200,
        targetId: String(created.body.id),
        actorUserId: adminId,
        params: { id: created.body.id },
      };
    },
  },
  'POST /api/projects/{id}/environments': {
    action: 'projects.environments.create',
    targetType: 'project',
    prepare: async () => {
      const project = await coverageProject();
      return {
        path: `/projects/${project.id}/environments`,
        token: admin,
        body: { name: 'staging', branch: 'develop' },
        status: 201,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id },
      };
    },
  },
  'POST /api/projects/{id}/custom-domains': {
    action: 'projects.custom_domains.create',
    targetType: 'project',
    prepare: async () => {
      const project = await coverageProject();
      return {
        path: `/projects/${project.id}/custom-domains`,
        token: admin,
        body: { domain: `c${++customDomains}.coverage.test` },
        status: 201,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id },
      };
    },
  },
  'PUT /api/projects/{id}/custom-domains/{domain_id}': {
    action: 'projects.custom_domains.update',
    targetType: 'project',
    prepare: async () => {
      const { project, domainId } = await coverageCustomDomain();
      return {
        path: `/projects/${project.id}/custom-domains/${domainId}`,
        token: admin,
        body: { environment_id: project.environments.production },
        status: 200,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, domain_id: domainId },
      };
    },
  },
  'DELETE /api/projects/{id}/custom-domains/{domain_id}': {
    action: 'projects.custom_domains.delete',
    targetType: 'project',
    prepare: async () => {
      const { project, domainId } = await coverageCustomDomain();
      return {
        path: `/projects/${project.id}/custom-domains/${domainId}`,
        token: admin,
        status: 204,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, domain_id: domainId },
      };
    },
  },
  'POST /api/projects/{id}/environments/{env_id}/domains': {
    action: 'projects.environments.domains.create',
    targetType: 'project',
    prepare: async () => {
      const project = await coverageProject();
      const envId = project.environments.production ?? 0;
      return {
        path: `/projects/${project.id}/environments/${envId}/domains`,
        token: admin,
        body: { domain: `e${++customDomains}.coverage.test` },
        status: 201,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, env_id: envId },
      };
    },
  },
  'DELETE /api/projects/{id}/environments/{env_id}/domains/{domain_id}': {
    action: 'projects.environments.domains.delete',
    targetType: 'project',
    prepare: async () => {
      const { project, domainId } = await coverageCustomDomain();
      const envId = project.environments.production ?? 0;
      return {
        path: `/projects/${project.id}/environments/${envId}/domains/${domainId}`,
        token: admin,
        status: 204,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, env_id: envId, domain_id: domainId },
      };
    },
  },
  'POST /api/projects/{id}/environments/{env_id}/crons': {
    action: 'projects.environments.crons.create',
    targetType: 'project',
    prepare: async () => {
      const project = await coverageProject();
      const envId = project.environments.production ?? 0;
      return {
        path: `/projects/${project.id}/environments/${envId}/crons`,
        token: admin,
        body: { path: '/api/cleanup', schedule: '0 3 * * *' },
        status: 201,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, env_id: envId },
      };
    },
  },
  'PATCH /api/projects/{id}/environments/{env_id}/crons/{cron_id}': {
    action: 'projects.environments.crons.update',
    targetType: 'project',
    prepare: async () => {
      const { project, envId, cronId } = await coverageCron();
      return {
        path: `/projects/${project.id}/environments/${envId}/crons/${cronId}`,
        token: admin,
        body: { enabled: false },
        status: 200,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, env_id: envId, cron_id: cronId },
      };
    },
  },
  'DELETE /api/projects/{id}/environments/{env_id}/crons/{cron_id}': {
    action: 'projects.environments.crons.delete',
    targetType: 'project',
    prepare: async () => {
      const { project, envId, cronId } = await coverageCron();
      return {
        path: `/projects/${project.id}/environments/${envId}/crons/${cronId}`,
        token: admin,
        status: 200,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, env_id: envId, cron_id: cronId },
      };
    },
  },
  'POST /api/projects/{id}/environments/{env_id}/crons/{cron_id}/run': {
    action: 'projects.environments.crons.run',
    targetType: 'project',
    prepare: async () => {
      const { project, envId, cronId } = await coverageCron();
      return {
        path: `/projects/${project.id}/environments/${envId}/crons/${cronId}/run`,
        token: admin,
        status: 200,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, env_id: envId, cron_id: cronId },
      };
    },
  },
  'PUT /api/projects/{id}/environments/{env_id}/settings': {
    action: 'projects.environments.settings.update',
    targetType: 'project',
    prepare: async () => {
      const project = await coverageProject();
      const envId = project.environments.production ?? 0;
      return {
        path: `/projects/${project.id}/environments/${envId}/settings`,
        token: admin,
        body: { memory_mb: 512, cpu_percent: 150, instances: 2 },
        status: 200,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, env_id: envId },
      };
    },
  },
  'POST /api/projects/{id}/trigger-pipeline': {
    action: 'projects.trigger_pipeline',
    targetType: 'project',
    prepare: async () => {
      const project = await coverageProject();
      return {
        path: `/projects/${project.id}/trigger-pipeline`,
        token: admin,
        body: { branch: 'main' },
        status: 202,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id },
        secrets: [GIT_TOKEN],
      };
    },
  },
  'POST /api/projects/{id}/deployments/{deployment_id}/cancel': {
    action: 'projects.deployments.cancel',
    targetType: 'project',
    prepare: async () => {
      const project = await coverageProject();
      const queued = await insertDeployment(platform.ctx.pool, {
        projectId: project.id,
        environmentId: project.environments.production ?? 0,
        status: 'queued',
      });
      return {
        path: `/projects/${project.id}/deployments/${queued.id}/cancel`,
        token: admin,
        status: 200,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, deployment_id: queued.id },
      };
    },
  },
  'POST /api/projects/{id}/deployments/{deployment_id}/pause': {
    action: 'projects.deployments.pause',
    targetType: 'project',
    prepare: async () => {
      const { project, current } = await servingProject();
      return {
        path: `/projects/${project.id}/deployments/${current.id}/pause`,
        token: admin,
        status: 200,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, deployment_id: current.id },
      };
    },
  },
  'POST /api/projects/{id}/deployments/{deployment_id}/resume': {
    action: 'projects.deployments.resume',
    targetType: 'project',
    prepare: async () => {
      const project = await coverageProject();
      const paused = await insertDeployment(platform.ctx.pool, {
        projectId: project.id,
        environmentId: project.environments.production ?? 0,
        status: 'paused',
        artifact: { dataDir: platform.dataDir },
        current: true,
      });
      return {
        path: `/projects/${project.id}/deployments/${paused.id}/resume`,
        token: admin,
        status: 200,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, deployment_id: paused.id },
      };
    },
  },
  'POST /api/projects/{id}/deployments/{deployment_id}/rollback': {
    // 'rollback' must be a verb segment in recorder.ts, or this reads 'projects.deployments.rollback.create'.
    action: 'projects.deployments.rollback',
    targetType: 'project',
    prepare: async () => {
      const project = await coverageProject();
      const environmentId = project.environments.production ?? 0;
      const earlier = await insertDeployment(platform.ctx.pool, {
        projectId: project.id,
        environmentId,
        status: 'ready',
        artifact: { dataDir: platform.dataDir },
      });
      await insertDeployment(platform.ctx.pool, {
        projectId: project.id,
        environmentId,
        status: 'ready',
        artifact: { dataDir: platform.dataDir },
        current: true,
      });
      return {
        path: `/projects/${project.id}/deployments/${earlier.id}/rollback`,
        token: admin,
        status: 202,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, deployment_id: earlier.id },
      };
    },
  },
  'POST /api/projects/{id}/env-vars': {
    action: 'projects.env_vars.create',
    targetType: 'project',
    prepare: async () => {
      const project = await insertProject(platform.ctx.pool, { name: 'Env audit', slug: `env-audit-${Date.now()}` });
      return {
        path: `/projects/${project.id}/env-vars`,
        token: admin,
        body: { key: 'SECRET_VALUE', value: 'coverage-env-value-1' },
        status: 201,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id },
        secrets: ['coverage-env-value-1'],
      };
    },
  },
  'PUT /api/projects/{id}/env-vars/{var_id}': {
    action: 'projects.env_vars.update',
    targetType: 'project',
    prepare: async () => {
      const project = await insertProject(platform.ctx.pool, { name: 'Env audit', slug: `env-audit-${Date.now()}` });
      const created = await api.call<{ id: number }>('POST', `/projects/${project.id}/env-vars`, {
        token: admin,
        body: { key: 'TO_CHANGE', value: 'before' },
      });
      return {
        path: `/projects/${project.id}/env-vars/${created.body.id}`,
        token: admin,
        body: { value: 'coverage-env-value-2' },
        status: 200,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, var_id: created.body.id },
        secrets: ['coverage-env-value-2'],
      };
    },
  },
  'DELETE /api/projects/{id}/env-vars/{var_id}': {
    action: 'projects.env_vars.delete',
    targetType: 'project',
    prepare: async () => {
      const project = await insertProject(platform.ctx.pool, { name: 'Env audit', slug: `env-audit-${Date.now()}` });
      const created = await api.call<{ id: number }>('POST', `/projects/${project.id}/env-vars`, {
        token: admin,
        body: { key: 'TO_REMOVE', value: 'coverage-env-value-3' },
      });
      return {
        path: `/projects/${project.id}/env-vars/${created.body.id}`,
        token: admin,
        status: 204,
        targetId: String(project.id),
        actorUserId: adminId,
        params: { id: project.id, var_id: created.body.id },
        secrets: ['coverage-env-value-3'],
      };
    },
  },
  'PUT /api/settings': {
    action: 'settings.update',
    targetType: 'settings',
    prepare: async () => ({
      path: '/settings',
      token: admin,
      body: { preview_environments_enabled: true, log_retention_days: 21, base_domain: 'apps.example.com' },
      status: 200,
      targetId: null,
      actorUserId: adminId,
    }),
  },
  'POST /api/domains': {
    action: 'domains.create',
    targetType: 'domain',
    prepare: async () => ({
      path: '/domains',
      token: admin,
      body: { domain: 'created.coverage.example.test' },
      status: 201,
      targetId: (answer) => String(answer.id),
      actorUserId: adminId,
    }),
  },
  'DELETE /api/domains/{domain}': domainCase('', 'domains.delete', 204),
  'POST /api/domains/{domain}/provision': domainCase('/provision', 'domains.provision', 202),
  'POST /api/domains/{domain}/renew': domainCase('/renew', 'domains.renew', 202, { certified: true }),
  'POST /api/domains/{domain}/order': domainCase('/order', 'domains.order.create', 201),
  'POST /api/domains/{domain}/order/finalize': domainCase('/order/finalize', 'domains.order.finalize', 200, {
    order: true,
  }),
  'DELETE /api/domains/{domain}/order': domainCase('/order', 'domains.order.delete', 204, { order: true }),
  'POST /api/lb/routes': {
    action: 'lb.routes.create',
    targetType: 'lb_route',
    prepare: async () => ({
      path: '/lb/routes',
      token: admin,
      body: { domain: 'created.lb.example.test', target: { kind: 'upstreams', upstreams: ['127.0.0.1:9'] } },
      status: 201,
      targetId: (answer) => String(answer.id),
      actorUserId: adminId,
    }),
  },
  'PUT /api/lb/routes/{domain}': {
    action: 'lb.routes.update',
    targetType: 'lb_route',
    prepare: async () => {
      const domain = await lbRoute();
      return {
        path: `/lb/routes/${domain}`,
        token: admin,
        body: { target: { kind: 'upstreams', upstreams: ['127.0.0.1:10'] } },
        status: 200,
        targetId: domain,
        actorUserId: adminId,
        params: { domain },
      };
    },
  },
  'DELETE /api/lb/routes/{domain}': {
    action: 'lb.routes.delete',
    targetType: 'lb_route',
    prepare: async () => {
      const domain = await lbRoute();
      return {
        path: `/lb/routes/${domain}`,
        token: admin,
        status: 204,
        targetId: domain,
        actorUserId: adminId,
        params: { domain },
      };
    },
  },
};

let customDomains = 0;
/** A project with one domain of its own. */
async function coverageCustomDomain() {
  const project = await coverageProject();
  const created = await api.call<{ id: number }>('POST', `/projects/${project.id}/custom-domains`, {
    token: admin,
    body: { domain: `p${++customDomains}.coverage.test` },
  });
  expect(created.status).toBe(201);
  return { project, domainId: created.body.id };
}

let domainCount = 0;
/** A domain of its own for one case; `certified` gives it a certificate first (through Pebble). */
async function domainFor(options: { certified?: boolean; order?: boolean } = {}): Promise<{ id: number; name: string }> {
  const name = `d${++domainCount}.coverage.example.test`;
  const created = await api.call<{ id: number }>('POST', '/domains', { token: admin, body: { domain: name } });
  expect(created.status).toBe(201);
  if (options.certified || options.order) {
    expect((await api.call('POST', `/domains/${name}/order`, { token: admin })).status).toBe(201);
  }
  if (options.certified) {
    const finalized = await api.call('POST', `/domains/${name}/order/finalize`, { token: admin });
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
  }
  return { id: created.body.id, name };
}

function domainCase(
  suffix: string,
  action: string,
  status: number,
  options: { certified?: boolean; order?: boolean } = {},
): Case {
  return {
    action,
    targetType: 'domain',
    prepare: async () => {
      const domain = await domainFor(options);
      return {
        path: `/domains/${domain.name}${suffix}`,
        token: admin,
        status,
        targetId: domain.name,
        actorUserId: adminId,
        params: { domain: domain.name },
      };
    },
  };
}

let lbRoutes = 0;
/** A load-balancer route of its own for one case. */
async function lbRoute(): Promise<string> {
  const domain = `route-${++lbRoutes}.lb.example.test`;
  const created = await api.call('POST', '/lb/routes', {
    token: admin,
    body: { domain, target: { kind: 'upstreams', upstreams: ['127.0.0.1:9'] } },
  });
  expect(created.status).toBe(201);
  return domain;
}

/** String values an answer hands out once (tokens, key secrets, recovery codes): none may reach the audit log. */
function handedOut(answer: unknown): string[] {
  if (!answer || typeof answer !== 'object') return [];
  return Object.entries(answer as Answer).flatMap(([key, value]) => {
    if (!/secret|token|recovery_codes/.test(key)) return [];
    return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && v.length >= 6);
  });
}

describe('the OpenAPI walk', () => {
  it('has a case for every mutating operation in the OpenAPI document, and no case for a route that is gone', () => {
    const operations = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.keys(methods)
        .filter((method) => MUTATING.includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.length).toBeGreaterThanOrEqual(Object.keys(CASES).length);
    const unknown = operations.filter((op) => !(op in CASES));
    expect(unknown, 'mutating routes without an audit-coverage case: add them to CASES').toEqual([]);
    const gone = Object.keys(CASES).filter((op) => !operations.includes(op));
    expect(gone, 'cases for routes the OpenAPI document no longer has').toEqual([]);
  });

  it.each(Object.entries(CASES))('%s writes exactly one audit row describing it', async (operation, c) => {
    const [method = '', route = ''] = operation.split(' ');
    expect(openapi.paths[route]?.[method.toLowerCase()], `${operation} is in the OpenAPI document`).toBeDefined();
    const prepared = await c.prepare();
    const before = await lastAuditId(api, admin);
    const response = await api.call<Answer>(method, prepared.path, {
      token: prepared.token,
      body: prepared.body,
      headers: { 'user-agent': USER_AGENT },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(prepared.status);

    const rows = await auditRowsAfter(api, admin, before);
    expect(rows, JSON.stringify(rows)).toHaveLength(1);
    const row = rows[0];
    const targetId = typeof prepared.targetId === 'function' ? prepared.targetId(response.body) : prepared.targetId;
    expect(row).toMatchObject({
      action: c.action,
      method,
      path: `/api${prepared.path}`,
      target_type: c.targetType,
      target_id: targetId,
      status_code: prepared.status,
      actor_type: 'user',
      actor_user_id: prepared.actorUserId,
      actor_api_key_id: null,
      user_agent: USER_AGENT,
      ip: expect.stringMatching(/127\.0\.0\.1|::1/),
    });
    expect(Number.isNaN(new Date(row?.created_at ?? '').getTime())).toBe(false);
    if (prepared.body !== undefined) expect(row?.summary.body).toBeDefined();
    if (prepared.params) {
      const params = row?.summary.params as Record<string, unknown>;
      for (const [key, value] of Object.entries(prepared.params)) expect(String(params?.[key]), key).toBe(String(value));
    }
    const text = JSON.stringify(row);
    for (const secret of [...(prepared.secrets ?? []), ...handedOut(response.body)]) expect(text).not.toContain(secret);
  });
});
