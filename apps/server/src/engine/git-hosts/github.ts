/** GitHub's REST API v3: api.github.com for github.com, {base}/api/v3 for GitHub Enterprise Server. */
import type { OutboundPolicy } from '../../lib/outbound';
import {
  allPages,
  dateOrNull,
  type GitHostClient,
  GitHostError,
  type HostBranch,
  type HostRepository,
  hostRequest,
  type RepositoryRef,
  record,
  str,
} from './client';

export function githubApiUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  return url.host === 'github.com' ? 'https://api.github.com' : `${url.origin}${url.pathname.replace(/\/+$/, '')}/api/v3`;
}

/** What a classic token needs: private repositories and commit statuses (`repo`), and webhooks. */
const NEEDED_SCOPES: { scope: string; satisfiedBy: string[] }[] = [
  { scope: 'repo', satisfiedBy: ['repo'] },
  { scope: 'admin:repo_hook', satisfiedBy: ['admin:repo_hook', 'write:repo_hook'] },
];

export function missingGithubScopes(scopes: string[]): string[] {
  return NEEDED_SCOPES.filter((need) => !need.satisfiedBy.some((s) => scopes.includes(s))).map((need) => need.scope);
}

function toRepository(item: unknown): HostRepository | null {
  const repo = record(item);
  const owner = str(record(repo.owner).login);
  const name = str(repo.name);
  const id = str(repo.id);
  if (!owner || !name || !id) return null;
  return {
    externalId: id,
    owner,
    name,
    fullName: str(repo.full_name) ?? `${owner}/${name}`,
    description: str(repo.description),
    defaultBranch: str(repo.default_branch) ?? 'main',
    private: repo.private === true,
    cloneUrl: str(repo.clone_url) ?? '',
    htmlUrl: str(repo.html_url) ?? '',
    pushedAt: dateOrNull(repo.pushed_at),
  };
}

function toBranch(item: unknown): HostBranch | null {
  const branch = record(item);
  const name = str(branch.name);
  const sha = str(record(branch.commit).sha);
  return name && sha ? { name, commitSha: sha, protected: branch.protected === true } : null;
}

const repoPath = (fullName: string) =>
  fullName
    .split('/')
    .map((part) => encodeURIComponent(part))
    .join('/');

export function githubClient(apiUrl: string, token: string, policy: OutboundPolicy): GitHostClient {
  const headers = {
    authorization: `Bearer ${token}`,
    accept: 'application/vnd.github+json',
    'x-github-api-version': '2022-11-28',
  };
  const request = (path: string, init?: Parameters<typeof hostRequest>[3]) =>
    hostRequest(`${apiUrl}${path}`, headers, policy, init);
  return {
    kind: 'github',
    apiUrl,
    async whoami() {
      const response = await request('/user');
      const user = record(response.json);
      const login = str(user.login);
      if (!login) throw new GitHostError('host', `${new URL(apiUrl).host} did not answer like GitHub's API: check the base URL`);
      const header = response.headers.get('x-oauth-scopes');
      const scopes = header
        ? header
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [];
      return { account: { login, id: str(user.id) ?? login, type: str(user.type) ?? 'User' }, scopes };
    },
    listRepositories: () =>
      allPages(
        `${apiUrl}/user/repos?per_page=100&sort=full_name&affiliation=owner,collaborator,organization_member`,
        headers,
        policy,
        toRepository,
      ),
    async getRepository(fullName) {
      const repo = toRepository((await request(`/repos/${repoPath(fullName)}`)).json);
      if (!repo) throw new GitHostError('host', `GitHub answered an unreadable repository for ${fullName}`);
      return repo;
    },
    listBranches: (repo: RepositoryRef) =>
      allPages(`${apiUrl}/repos/${repoPath(repo.fullName)}/branches?per_page=100`, headers, policy, toBranch),
    async createHook(repo, hook) {
      const response = await request(`/repos/${repoPath(repo.fullName)}/hooks`, {
        method: 'POST',
        body: {
          name: 'web',
          active: true,
          events: ['push', 'pull_request'],
          config: { url: hook.url, content_type: 'json', secret: hook.secret, insecure_ssl: '0' },
        },
      });
      const id = str(record(response.json).id);
      if (!id) throw new GitHostError('host', 'GitHub did not answer the new webhook id');
      return id;
    },
    async deleteHook(repo, hookId) {
      await request(`/repos/${repoPath(repo.fullName)}/hooks/${encodeURIComponent(hookId)}`, { method: 'DELETE', accept: [404] });
    },
    async setCommitStatus(repo, sha, status) {
      await request(`/repos/${repoPath(repo.fullName)}/statuses/${encodeURIComponent(sha)}`, {
        method: 'POST',
        body: {
          state: status.state,
          ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
          description: status.description.slice(0, 140),
          context: status.context,
        },
      });
    },
  };
}
