/** GitLab's REST API v4 ({base}/api/v4), for gitlab.com and self-hosted GitLab. */
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

export function gitlabApiUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}/api/v4`;
}

/** `api` is the one scope that reads repositories and writes hooks and statuses. */
export function missingGitlabScopes(scopes: string[]): string[] {
  return scopes.includes('api') ? [] : ['api'];
}

function toRepository(item: unknown): HostRepository | null {
  const project = record(item);
  const id = str(project.id);
  const fullName = str(project.path_with_namespace);
  const name = str(project.path);
  if (!id || !fullName || !name) return null;
  const owner = str(record(project.namespace).full_path) ?? fullName.slice(0, fullName.lastIndexOf('/'));
  return {
    externalId: id,
    owner,
    name,
    fullName,
    description: str(project.description) || null,
    defaultBranch: str(project.default_branch) ?? 'main',
    private: project.visibility !== 'public',
    cloneUrl: str(project.http_url_to_repo) ?? '',
    htmlUrl: str(project.web_url) ?? '',
    pushedAt: dateOrNull(project.last_activity_at),
  };
}

function toBranch(item: unknown): HostBranch | null {
  const branch = record(item);
  const name = str(branch.name);
  const sha = str(record(branch.commit).id);
  return name && sha ? { name, commitSha: sha, protected: branch.protected === true } : null;
}

export type GitlabAuth = { kind: 'pat' | 'oauth'; token: string };

export function gitlabClient(apiUrl: string, auth: GitlabAuth, policy: OutboundPolicy): GitHostClient {
  const headers: Record<string, string> =
    auth.kind === 'pat' ? { 'private-token': auth.token } : { authorization: `Bearer ${auth.token}` };
  const request = (path: string, init?: Parameters<typeof hostRequest>[3]) =>
    hostRequest(`${apiUrl}${path}`, headers, policy, init);
  const project = (repo: RepositoryRef) => `/projects/${encodeURIComponent(repo.externalId)}`;
  return {
    kind: 'gitlab',
    apiUrl,
    async whoami() {
      const user = record((await request('/user')).json);
      const login = str(user.username);
      if (!login) throw new GitHostError('host', `${new URL(apiUrl).host} did not answer like GitLab's API: check the base URL`);
      let scopes: string[] = [];
      if (auth.kind === 'pat') {
        const self = record((await request('/personal_access_tokens/self')).json);
        scopes = Array.isArray(self.scopes) ? self.scopes.filter((s): s is string => typeof s === 'string') : [];
      } else {
        // An OAuth token has the scopes its application asked for (`api`); GitLab does not list them per token.
        scopes = ['api'];
      }
      return { account: { login, id: str(user.id) ?? login, type: 'User' }, scopes };
    },
    listRepositories: () =>
      allPages(
        `${apiUrl}/projects?membership=true&simple=false&per_page=100&order_by=path&sort=asc`,
        headers,
        policy,
        toRepository,
      ),
    async getRepository(fullName) {
      const repo = toRepository((await request(`/projects/${encodeURIComponent(fullName)}`)).json);
      if (!repo) throw new GitHostError('host', `GitLab answered an unreadable project for ${fullName}`);
      return repo;
    },
    listBranches: (repo) => allPages(`${apiUrl}${project(repo)}/repository/branches?per_page=100`, headers, policy, toBranch),
    async createHook(repo, hook) {
      const response = await request(`${project(repo)}/hooks`, {
        method: 'POST',
        body: {
          url: hook.url,
          token: hook.secret,
          push_events: true,
          merge_requests_events: true,
          enable_ssl_verification: true,
        },
      });
      const id = str(record(response.json).id);
      if (!id) throw new GitHostError('host', 'GitLab did not answer the new webhook id');
      return id;
    },
    async deleteHook(repo, hookId) {
      await request(`${project(repo)}/hooks/${encodeURIComponent(hookId)}`, { method: 'DELETE', accept: [404] });
    },
    async setCommitStatus(repo, sha, status) {
      await request(`${project(repo)}/statuses/${encodeURIComponent(sha)}`, {
        method: 'POST',
        body: {
          state: status.state === 'error' ? 'failed' : status.state === 'failure' ? 'failed' : status.state,
          ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
          description: status.description.slice(0, 255),
          name: status.context,
        },
      });
    },
  };
}
