import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import { promisify } from 'node:util';
import { startGitServer, type TestRepo } from './git-server';

/**
 * A stand-in for GitHub Enterprise (`{base}/api/v3`) or self-hosted GitLab (`{base}/api/v4`) on
 * 127.0.0.1: the REST endpoints a deploy platform uses (user, token scopes, repositories, branches,
 * commits, webhooks, commit statuses, GitLab OAuth) with the hosts' own response shapes, error
 * bodies and pagination headers, and the repositories themselves over git smart-HTTP on the same
 * host: every non-API request is proxied to a real git server (startGitServer) holding them.
 */

export type GitHostKind = 'github' | 'gitlab';

export type GitHostStandInOptions = {
  kind: GitHostKind;
  /** The one valid token (PAT). Requests with another token get the host's 401 body. */
  token: string;
  /**
   * Scopes the token reports: GitHub via the `X-OAuth-Scopes` response header on GET /user; GitLab
   * via GET /api/v4/personal_access_tokens/self `scopes`. Default github ['repo','admin:repo_hook'], gitlab ['api'].
   */
  scopes?: string[];
  /** The account the token belongs to. Default 'octo-user'. */
  login?: string;
  /** Page size cap the host enforces (GitHub 100, GitLab 100); tests set it small to force pagination. */
  maxPerPage?: number;
  /** For GitLab OAuth: the registered application's client id and secret. */
  oauthApp?: { clientId: string; clientSecret: string };
};

export type RecordedHook = {
  id: number;
  /** `owner/name` as given to createRepo(). */
  repo: string;
  url: string;
  /** GitHub `config.secret`. */
  secret?: string;
  /** GitLab `token`. */
  token?: string;
  /** GitHub: `events` as sent (default ['push']); GitLab: the `*_events` flags that are on, e.g. ['push_events']. */
  events: string[];
  active: boolean;
};

export type RecordedStatus = {
  repo: string;
  /** The full sha the status was set on. */
  sha: string;
  /** As sent: GitHub pending/success/failure/error, GitLab pending/running/success/failed/canceled/skipped. */
  state: string;
  target_url?: string;
  description?: string;
  /** GitHub `context`; GitLab `name` (or its alias `context`). Defaults to 'default' like both hosts. */
  context?: string;
};

export type RecordedApiRequest = {
  method: string;
  /** Without the query, e.g. `/api/v3/user/repos`. */
  path: string;
  /** The query without `?`, e.g. `per_page=2&page=2`. */
  query: string;
  status: number;
};

export type GitHostStandIn = {
  kind: GitHostKind;
  port: number;
  /** `http://127.0.0.1:PORT` */
  baseUrl: string;
  /** baseUrl + '/api/v3' (GitHub) or '/api/v4' (GitLab). */
  apiUrl: string;
  token: string;
  /**
   * A repository owned by `owner` (the login's when it matches, an organization/group otherwise)
   * with one commit of `files`, or none when `empty`. The TestRepo's `url` is the stand-in's.
   * GitLab names may have subgroups (`group/sub/name`). Repositories are public unless `private`;
   * git access always needs the token either way.
   */
  createRepo(
    fullName: string,
    files: Record<string, string>,
    options?: { branch?: string; private?: boolean; description?: string; empty?: boolean },
  ): Promise<TestRepo>;
  /** The current hooks (a deleted one is removed). */
  hooks: RecordedHook[];
  statuses: RecordedStatus[];
  /** API (and GitLab OAuth) requests only, in order; git traffic is in the TestRepo's requests(). */
  requests: RecordedApiRequest[];
  /** Makes every following API request fail with this status (e.g. 500/503) until cleared with null. */
  failApiWith(status: number | null): void;
  close(): Promise<void>;
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json | undefined };
type JsonObject = { [key: string]: Json | undefined };

type HostedRepo = {
  id: number;
  fullName: string;
  /** Everything before the last segment: the owner (GitHub) or namespace path (GitLab). */
  owner: string;
  name: string;
  private: boolean;
  description: string | null;
  createdAt: number;
  repo: TestRepo;
};

type StoredHook = { recorded: RecordedHook; repo: HostedRepo; createdAt: number; fields: JsonObject };

type OAuthToken = { access: string; refresh: string; scope: string; createdAt: number; expiresAt: number; revoked: boolean };
type OAuthCode = {
  clientId: string;
  redirectUri: string;
  scope: string;
  expiresAt: number;
  challenge: string | null;
  challengeMethod: string | null;
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

const execFileAsync = promisify(execFile);

/** Read-only git on the bare repositories; like git-server.ts, nothing comes from a global config. */
async function git(args: string[], cwd: string): Promise<string | null> {
  try {
    const { stdout } = await execFileAsync('git', args, {
      cwd,
      maxBuffer: 16 * 1024 * 1024,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: os.tmpdir(),
        LC_ALL: 'C',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
      },
    });
    return stdout;
  } catch {
    return null;
  }
}

type CommitInfo = {
  sha: string;
  parents: string[];
  tree: string;
  authorName: string;
  authorEmail: string;
  authorDate: number;
  committerName: string;
  committerEmail: string;
  committerDate: number;
  message: string;
};

/** A ref a client may name: no option-like or path-escaping input reaches git. */
const SAFE_REF = /^(?!-)[A-Za-z0-9._/@{}^~-]+$/;

async function commitOf(repo: TestRepo, ref: string): Promise<CommitInfo | null> {
  if (!SAFE_REF.test(ref) || ref.includes('..')) return null;
  const out = await git(
    ['log', '-1', '--format=%H%x00%P%x00%T%x00%an%x00%ae%x00%at%x00%cn%x00%ce%x00%ct%x00%B', ref, '--'],
    repo.bareDir,
  );
  if (!out) return null;
  const [sha, parents, tree, an, ae, at, cn, ce, ct, ...rest] = out.split('\0');
  if (!sha || tree === undefined) return null;
  return {
    sha,
    parents: parents ? parents.split(' ').filter(Boolean) : [],
    tree,
    authorName: an ?? '',
    authorEmail: ae ?? '',
    authorDate: Number(at) * 1000,
    committerName: cn ?? '',
    committerEmail: ce ?? '',
    committerDate: Number(ct) * 1000,
    // %B keeps the message's own trailing newline and git log adds one: GitHub shows neither.
    message: rest.join('\0').replace(/\n+$/, ''),
  };
}

/** The time of the newest branch head, or null for an empty repository. */
async function lastPushOf(repo: TestRepo): Promise<number | null> {
  const out = await git(
    ['for-each-ref', '--sort=-committerdate', '--count=1', '--format=%(committerdate:unix)', 'refs/heads/'],
    repo.bareDir,
  );
  const seconds = Number.parseInt(out?.trim() ?? '', 10);
  return Number.isFinite(seconds) ? seconds * 1000 : null;
}

/** GitHub writes times without milliseconds; GitLab with them. */
const githubTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const gitlabTime = (ms: number) => new Date(ms).toISOString();

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function withoutHopByHop(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 1024 * 1024) reject(new HttpError(413, { message: 'Payload Too Large' }));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function basicCredentials(header: string | undefined): { user: string; password: string } | null {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: Json | undefined): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
/** GitLab takes booleans as JSON booleans or form strings. */
const bool = (value: Json | undefined, fallback: boolean): boolean =>
  value === undefined || value === null ? fallback : value === true || value === 'true' || value === '1' || value === 1;

const GITHUB_DOCS = 'https://docs.github.com/rest';

/** Starts the stand-in (and the git server behind it) on 127.0.0.1, a port of the OS's choosing. */
export async function startGitHostStandIn(options: GitHostStandInOptions): Promise<GitHostStandIn> {
  const { kind, token } = options;
  const login = options.login ?? 'octo-user';
  const scopes = options.scopes ?? (kind === 'github' ? ['repo', 'admin:repo_hook'] : ['api']);
  const maxPerPage = Math.max(1, options.maxPerPage ?? 100);
  const apiPrefix = kind === 'github' ? '/api/v3' : '/api/v4';
  const startedAt = Date.now();

  const inner = await startGitServer({ token });
  const repos: HostedRepo[] = [];
  const hooks: RecordedHook[] = [];
  const storedHooks = new Map<number, StoredHook>();
  const statuses: RecordedStatus[] = [];
  const requests: RecordedApiRequest[] = [];
  const oauthCodes = new Map<string, OAuthCode>();
  const oauthTokens = new Map<string, OAuthToken>();
  const refreshTokens = new Map<string, OAuthToken>();
  const ownerIds = new Map<string, number>([[login.toLowerCase(), 1]]);
  const sockets = new Set<Socket>();
  // Its own agent, so close() leaves no kept-alive socket to the inner server behind.
  const agent = new http.Agent({ keepAlive: false });
  let failStatus: number | null = null;
  let nextRepoId = kind === 'github' ? 100001 : 1;
  let nextHookId = 1;
  let nextStatusId = 1;

  const server = http.createServer();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  const apiUrl = `${baseUrl}${apiPrefix}`;

  const ownerId = (owner: string) => {
    const key = owner.toLowerCase();
    if (!ownerIds.has(key)) ownerIds.set(key, ownerIds.size + 1);
    return ownerIds.get(key)!;
  };
  const isUser = (owner: string) => owner.toLowerCase() === login.toLowerCase();
  const findRepo = (fullName: string) => repos.find((r) => r.fullName.toLowerCase() === fullName.toLowerCase());

  const validOAuthToken = (value: string) => {
    const issued = oauthTokens.get(value);
    return issued !== undefined && !issued.revoked && issued.expiresAt > Date.now();
  };

  // ---- pagination -------------------------------------------------------------------------

  const pageOf = <T>(items: T[], query: URLSearchParams, defaultPerPage: number) => {
    const asked = Number.parseInt(query.get('per_page') ?? '', 10);
    const perPage = Math.min(asked > 0 ? asked : defaultPerPage, maxPerPage, 100);
    const askedPage = Number.parseInt(query.get('page') ?? '', 10);
    const page = askedPage > 0 ? askedPage : 1;
    const totalPages = Math.max(1, Math.ceil(items.length / perPage));
    return { items: items.slice((page - 1) * perPage, page * perPage), page, perPage, totalPages, total: items.length };
  };

  const linkTo = (pathname: string, query: URLSearchParams, set: Record<string, number>) => {
    const params = new URLSearchParams(query);
    for (const [key, value] of Object.entries(set)) params.set(key, String(value));
    return `${baseUrl}${pathname}?${params}`;
  };

  /** GitHub: a Link header only when there is more than one page, rels in GitHub's order. */
  const githubPage = <T>(items: T[], url: URL) => {
    const p = pageOf(items, url.searchParams, 30);
    const links: string[] = [];
    const link = (page: number, rel: string) => links.push(`<${linkTo(url.pathname, url.searchParams, { page })}>; rel="${rel}"`);
    if (p.page > 1) link(Math.min(p.page - 1, p.totalPages), 'prev');
    if (p.page < p.totalPages) {
      link(p.page + 1, 'next');
      link(p.totalPages, 'last');
    }
    if (p.page > 1) link(1, 'first');
    const headers: Record<string, string> = links.length ? { link: links.join(', ') } : {};
    return { items: p.items, headers };
  };

  /** GitLab: the X-* headers always, and a Link with prev/next/first/last. */
  const gitlabPage = <T>(items: T[], url: URL) => {
    const p = pageOf(items, url.searchParams, 20);
    const links: string[] = [];
    const link = (page: number, rel: string) =>
      links.push(`<${linkTo(url.pathname, url.searchParams, { page, per_page: p.perPage })}>; rel="${rel}"`);
    if (p.page > 1) link(p.page - 1, 'prev');
    if (p.page < p.totalPages) link(p.page + 1, 'next');
    link(1, 'first');
    link(p.totalPages, 'last');
    const headers: Record<string, string> = {
      link: links.join(', '),
      'x-page': String(p.page),
      'x-per-page': String(p.perPage),
      'x-next-page': p.page < p.totalPages ? String(p.page + 1) : '',
      'x-prev-page': p.page > 1 ? String(p.page - 1) : '',
      'x-total': String(p.total),
      'x-total-pages': String(p.totalPages),
    };
    return { items: p.items, headers };
  };

  // ---- GitHub -----------------------------------------------------------------------------

  const githubNotFound = () => new HttpError(404, { message: 'Not Found', documentation_url: GITHUB_DOCS, status: '404' });
  const githubValidation = (resource: string, message: string) =>
    new HttpError(422, {
      message: 'Validation Failed',
      errors: [{ resource, code: 'custom', message }],
      documentation_url: GITHUB_DOCS,
      status: '422',
    });

  const githubAccount = (owner: string): JsonObject => {
    const id = ownerId(owner);
    return {
      login: owner,
      id,
      node_id: Buffer.from(`04:${isUser(owner) ? 'User' : 'Organization'}${id}`).toString('base64'),
      avatar_url: `${baseUrl}/avatars/u/${id}`,
      gravatar_id: '',
      url: `${apiUrl}/users/${owner}`,
      html_url: `${baseUrl}/${owner}`,
      repos_url: `${apiUrl}/users/${owner}/repos`,
      type: isUser(owner) ? 'User' : 'Organization',
      site_admin: false,
    };
  };

  const githubRepo = async (h: HostedRepo): Promise<JsonObject> => {
    const pushed = (await lastPushOf(h.repo)) ?? h.createdAt;
    const api = `${apiUrl}/repos/${h.fullName}`;
    return {
      id: h.id,
      node_id: Buffer.from(`010:Repository${h.id}`).toString('base64'),
      name: h.name,
      full_name: h.fullName,
      private: h.private,
      owner: githubAccount(h.owner),
      html_url: `${baseUrl}/${h.fullName}`,
      description: h.description,
      fork: false,
      url: api,
      branches_url: `${api}/branches{/branch}`,
      commits_url: `${api}/commits{/sha}`,
      hooks_url: `${api}/hooks`,
      statuses_url: `${api}/statuses/{sha}`,
      created_at: githubTime(h.createdAt),
      updated_at: githubTime(pushed),
      pushed_at: githubTime(pushed),
      git_url: `git://127.0.0.1:${port}/${h.fullName}.git`,
      ssh_url: `git@127.0.0.1:${h.fullName}.git`,
      clone_url: h.repo.url,
      svn_url: `${baseUrl}/${h.fullName}`,
      homepage: null,
      size: 0,
      stargazers_count: 0,
      watchers_count: 0,
      language: null,
      has_issues: true,
      has_projects: true,
      has_downloads: true,
      has_wiki: true,
      has_pages: false,
      forks_count: 0,
      archived: false,
      disabled: false,
      open_issues_count: 0,
      license: null,
      allow_forking: true,
      is_template: false,
      topics: [],
      visibility: h.private ? 'private' : 'public',
      forks: 0,
      open_issues: 0,
      watchers: 0,
      default_branch: h.repo.defaultBranch,
      permissions: { admin: true, maintain: true, push: true, triage: true, pull: true },
    };
  };

  const githubHook = (stored: StoredHook): JsonObject => {
    const { recorded } = stored;
    const api = `${apiUrl}/repos/${stored.repo.fullName}/hooks/${recorded.id}`;
    const config: JsonObject = {
      content_type: str(stored.fields.content_type) ?? 'form',
      insecure_ssl: str(stored.fields.insecure_ssl) ?? '0',
      url: recorded.url,
    };
    // GitHub never shows a secret back, only that one is set.
    if (recorded.secret !== undefined) config.secret = '********';
    return {
      type: 'Repository',
      id: recorded.id,
      name: 'web',
      active: recorded.active,
      events: recorded.events,
      config,
      updated_at: githubTime(stored.createdAt),
      created_at: githubTime(stored.createdAt),
      url: api,
      test_url: `${api}/test`,
      ping_url: `${api}/pings`,
      deliveries_url: `${api}/deliveries`,
      last_response: { code: null, status: 'unused', message: null },
    };
  };

  const githubCommitJson = (h: HostedRepo, c: CommitInfo): JsonObject => {
    const api = `${apiUrl}/repos/${h.fullName}`;
    return {
      sha: c.sha,
      node_id: Buffer.from(`06:Commit${h.id}:${c.sha}`).toString('base64'),
      commit: {
        author: { name: c.authorName, email: c.authorEmail, date: githubTime(c.authorDate) },
        committer: { name: c.committerName, email: c.committerEmail, date: githubTime(c.committerDate) },
        message: c.message,
        tree: { sha: c.tree, url: `${api}/git/trees/${c.tree}` },
        url: `${api}/git/commits/${c.sha}`,
        comment_count: 0,
        verification: { verified: false, reason: 'unsigned', signature: null, payload: null },
      },
      url: `${api}/commits/${c.sha}`,
      html_url: `${baseUrl}/${h.fullName}/commit/${c.sha}`,
      comments_url: `${api}/commits/${c.sha}/comments`,
      author: null,
      committer: null,
      parents: c.parents.map((sha) => ({
        sha,
        url: `${api}/commits/${sha}`,
        html_url: `${baseUrl}/${h.fullName}/commit/${sha}`,
      })),
    };
  };

  const githubUser = (): JsonObject => ({
    ...githubAccount(login),
    name: login,
    company: null,
    blog: '',
    location: null,
    email: null,
    hireable: null,
    bio: null,
    twitter_username: null,
    public_repos: repos.filter((r) => isUser(r.owner) && !r.private).length,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: githubTime(startedAt),
    updated_at: githubTime(startedAt),
  });

  type Reply = { status: number; body: Json | null; headers?: Record<string, string> };

  const githubApi = async (method: string, segments: string[], url: URL, body: () => Promise<JsonObject>): Promise<Reply> => {
    const [head, owner, name, sub, ...rest] = segments;
    if (head === 'user' && segments.length === 1 && method === 'GET') {
      return {
        status: 200,
        body: githubUser(),
        headers: { 'x-oauth-scopes': scopes.join(', '), 'x-accepted-oauth-scopes': '' },
      };
    }
    if (head === 'user' && owner === 'repos' && segments.length === 2 && method === 'GET') {
      const sort = url.searchParams.get('sort') ?? 'full_name';
      const direction = url.searchParams.get('direction') ?? (sort === 'full_name' ? 'asc' : 'desc');
      const visibility = url.searchParams.get('visibility') ?? 'all';
      const listed = await Promise.all(
        repos
          .filter((r) => visibility === 'all' || (visibility === 'private') === r.private)
          .map(async (r) => ({ repo: r, pushed: (await lastPushOf(r.repo)) ?? r.createdAt })),
      );
      listed.sort((a, b) => {
        const order =
          sort === 'created'
            ? a.repo.createdAt - b.repo.createdAt || a.repo.id - b.repo.id
            : sort === 'pushed' || sort === 'updated'
              ? a.pushed - b.pushed || a.repo.id - b.repo.id
              : a.repo.fullName.toLowerCase().localeCompare(b.repo.fullName.toLowerCase());
        return direction === 'desc' ? -order : order;
      });
      const page = githubPage(listed, url);
      return { status: 200, body: await Promise.all(page.items.map((l) => githubRepo(l.repo))), headers: page.headers };
    }
    if (head !== 'repos' || owner === undefined || name === undefined) throw githubNotFound();
    const h = findRepo(`${owner}/${name}`);
    if (!h) throw githubNotFound();
    const api = `${apiUrl}/repos/${h.fullName}`;

    if (sub === undefined && method === 'GET') return { status: 200, body: await githubRepo(h) };
    if (sub === 'branches' && rest.length === 0 && method === 'GET') {
      const heads = Object.entries(await h.repo.branchHeads()).sort(([a], [b]) => a.localeCompare(b));
      const page = githubPage(heads, url);
      return {
        status: 200,
        body: page.items.map(([branch, sha]) => ({
          name: branch,
          commit: { sha, url: `${api}/commits/${sha}` },
          protected: false,
        })),
        headers: page.headers,
      };
    }
    if (sub === 'commits' && rest.length > 0 && method === 'GET') {
      const ref = rest.join('/');
      const commit = await commitOf(h.repo, ref);
      if (!commit)
        throw new HttpError(422, { message: `No commit found for SHA: ${ref}`, documentation_url: GITHUB_DOCS, status: '422' });
      return { status: 200, body: githubCommitJson(h, commit) };
    }
    if (sub === 'hooks' && rest.length === 0 && method === 'GET') {
      const list = [...storedHooks.values()].filter((s) => s.repo === h).map(githubHook);
      const page = githubPage(list, url);
      return { status: 200, body: page.items, headers: page.headers };
    }
    if (sub === 'hooks' && rest.length === 0 && method === 'POST') {
      const input = await body();
      if ((str(input.name) ?? 'web') !== 'web') throw githubValidation('Hook', `Name must be "web"`);
      const config = isObject(input.config) ? input.config : {};
      const hookUrl = str(config.url);
      if (!hookUrl) throw githubValidation('Hook', 'Config must have url');
      if ([...storedHooks.values()].some((s) => s.repo === h && s.recorded.url === hookUrl))
        throw githubValidation('Hook', 'Hook already exists on this repository');
      const events = Array.isArray(input.events) ? input.events.filter((e): e is string => typeof e === 'string') : ['push'];
      const recorded: RecordedHook = {
        id: nextHookId++,
        repo: h.fullName,
        url: hookUrl,
        events,
        active: input.active === undefined ? true : input.active === true,
      };
      const secret = str(config.secret);
      if (secret) recorded.secret = secret;
      const stored: StoredHook = { recorded, repo: h, createdAt: Date.now(), fields: config };
      storedHooks.set(recorded.id, stored);
      hooks.push(recorded);
      return { status: 201, body: githubHook(stored), headers: { location: `${api}/hooks/${recorded.id}` } };
    }
    if (sub === 'hooks' && rest.length === 1 && (method === 'GET' || method === 'DELETE')) {
      const stored = storedHooks.get(Number(rest[0]));
      if (!stored || stored.repo !== h) throw githubNotFound();
      if (method === 'GET') return { status: 200, body: githubHook(stored) };
      removeHook(stored.recorded.id);
      return { status: 204, body: null };
    }
    if (sub === 'statuses' && rest.length === 1 && method === 'POST') {
      const input = await body();
      const commit = await commitOf(h.repo, rest[0]!);
      if (!commit)
        throw new HttpError(422, {
          message: `No commit found for SHA: ${rest[0]}`,
          documentation_url: GITHUB_DOCS,
          status: '422',
        });
      const state = str(input.state);
      if (!state || !['error', 'failure', 'pending', 'success'].includes(state))
        throw new HttpError(422, {
          message: 'Validation Failed',
          errors: [{ resource: 'Status', code: 'custom', field: 'state', message: 'state is not included in the list' }],
          documentation_url: GITHUB_DOCS,
          status: '422',
        });
      const recorded = recordStatus(h, commit.sha, state, input, str(input.context) ?? 'default');
      const id = nextStatusId++;
      const now = githubTime(Date.now());
      return {
        status: 201,
        body: {
          url: `${api}/statuses/${commit.sha}`,
          avatar_url: null,
          id,
          node_id: Buffer.from(`013:StatusContext${id}`).toString('base64'),
          state,
          description: recorded.description ?? null,
          target_url: recorded.target_url ?? null,
          context: recorded.context ?? 'default',
          created_at: now,
          updated_at: now,
          creator: githubAccount(login),
        },
      };
    }
    throw githubNotFound();
  };

  // ---- GitLab -----------------------------------------------------------------------------

  const gitlabNotFound = (what?: string) => new HttpError(404, { message: what ? `404 ${what} Not Found` : '404 Not Found' });
  const gitlabBadParam = (name: string) => new HttpError(400, { error: `${name} does not have a valid value` });

  const gitlabUserMini = (): JsonObject => ({
    id: 1,
    username: login,
    name: login,
    state: 'active',
    locked: false,
    avatar_url: `${baseUrl}/uploads/-/system/user/avatar/1/avatar.png`,
    web_url: `${baseUrl}/${login}`,
  });

  const gitlabNamespace = (path: string): JsonObject => {
    const user = isUser(path);
    const name = path.slice(path.lastIndexOf('/') + 1);
    const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : null;
    return {
      id: ownerId(path),
      name,
      path: name,
      kind: user ? 'user' : 'group',
      full_path: path,
      parent_id: parent === null ? null : ownerId(parent),
      avatar_url: null,
      web_url: user ? `${baseUrl}/${path}` : `${baseUrl}/groups/${path}`,
    };
  };

  const gitlabProject = async (h: HostedRepo): Promise<JsonObject> => {
    const pushed = await lastPushOf(h.repo);
    const activity = gitlabTime(pushed ?? h.createdAt);
    const web = `${baseUrl}/${h.fullName}`;
    const api = `${apiUrl}/projects/${h.id}`;
    const project: JsonObject = {
      id: h.id,
      description: h.description,
      name: h.name,
      name_with_namespace: h.fullName.split('/').join(' / '),
      path: h.name,
      path_with_namespace: h.fullName,
      created_at: gitlabTime(h.createdAt),
      default_branch: h.repo.defaultBranch,
      tag_list: [],
      topics: [],
      ssh_url_to_repo: `git@127.0.0.1:${h.fullName}.git`,
      http_url_to_repo: h.repo.url,
      web_url: web,
      readme_url: null,
      forks_count: 0,
      avatar_url: null,
      star_count: 0,
      last_activity_at: activity,
      updated_at: activity,
      namespace: gitlabNamespace(h.owner),
      _links: {
        self: api,
        issues: `${api}/issues`,
        merge_requests: `${api}/merge_requests`,
        repo_branches: `${api}/repository/branches`,
        labels: `${api}/labels`,
        events: `${api}/events`,
        members: `${api}/members`,
      },
      empty_repo: pushed === null,
      archived: false,
      visibility: h.private ? 'private' : 'public',
      creator_id: 1,
      permissions: {
        project_access: isUser(h.owner) ? { access_level: 50, notification_level: 3 } : null,
        group_access: isUser(h.owner) ? null : { access_level: 40, notification_level: 3 },
      },
    };
    // GitLab shows an owner only for projects in a user's namespace.
    if (isUser(h.owner)) project.owner = gitlabUserMini();
    return project;
  };

  const gitlabCommitJson = (h: HostedRepo, c: CommitInfo): JsonObject => ({
    id: c.sha,
    short_id: c.sha.slice(0, 8),
    created_at: gitlabTime(c.committerDate),
    parent_ids: c.parents,
    title: c.message.split('\n')[0] ?? '',
    message: `${c.message}\n`,
    author_name: c.authorName,
    author_email: c.authorEmail,
    authored_date: gitlabTime(c.authorDate),
    committer_name: c.committerName,
    committer_email: c.committerEmail,
    committed_date: gitlabTime(c.committerDate),
    trailers: {},
    extended_trailers: {},
    web_url: `${baseUrl}/${h.fullName}/-/commit/${c.sha}`,
  });

  const GITLAB_HOOK_EVENTS = [
    'push_events',
    'issues_events',
    'confidential_issues_events',
    'merge_requests_events',
    'tag_push_events',
    'note_events',
    'confidential_note_events',
    'job_events',
    'pipeline_events',
    'wiki_page_events',
    'deployment_events',
    'releases_events',
  ] as const;

  const gitlabHook = (stored: StoredHook): JsonObject => {
    const { recorded, fields } = stored;
    const hook: JsonObject = {
      id: recorded.id,
      url: recorded.url,
      name: str(fields.name) ?? null,
      description: str(fields.description) ?? null,
      project_id: stored.repo.id,
      push_events_branch_filter: str(fields.push_events_branch_filter) ?? '',
      branch_filter_strategy: 'wildcard',
      enable_ssl_verification: bool(fields.enable_ssl_verification, true),
      repository_update_events: false,
      alert_status: 'executable',
      disabled_until: null,
      url_variables: [],
      created_at: gitlabTime(stored.createdAt),
      custom_webhook_template: null,
      custom_headers: [],
    };
    // The token is write-only on GitLab too.
    for (const event of GITLAB_HOOK_EVENTS) hook[event] = recorded.events.includes(event);
    return hook;
  };

  const findProject = (idOrPath: string | undefined) => {
    const h =
      idOrPath === undefined
        ? undefined
        : /^\d+$/.test(idOrPath)
          ? repos.find((r) => r.id === Number(idOrPath))
          : findRepo(idOrPath);
    if (!h) throw gitlabNotFound('Project');
    return h;
  };

  const gitlabApi = async (method: string, segments: string[], url: URL, body: () => Promise<JsonObject>, viaOAuth: boolean) => {
    const [head, id, sub, ...rest] = segments;
    const query = url.searchParams;
    if (head === 'user' && segments.length === 1 && method === 'GET') {
      return {
        status: 200,
        body: {
          ...gitlabUserMini(),
          created_at: gitlabTime(startedAt),
          bio: '',
          location: '',
          public_email: null,
          skype: '',
          linkedin: '',
          twitter: '',
          website_url: '',
          organization: '',
          job_title: '',
          bot: false,
          last_sign_in_at: gitlabTime(startedAt),
          confirmed_at: gitlabTime(startedAt),
          last_activity_on: gitlabTime(Date.now()).slice(0, 10),
          email: `${login}@example.com`,
          projects_limit: 100000,
          can_create_group: true,
          can_create_project: true,
          two_factor_enabled: false,
          external: false,
          private_profile: false,
          is_admin: false,
        },
      };
    }
    if (head === 'personal_access_tokens' && id === 'self' && segments.length === 2 && method === 'GET') {
      // An OAuth access token is not a personal access token.
      if (viaOAuth) throw gitlabNotFound();
      return {
        status: 200,
        body: {
          id: 1,
          name: 'launchbay-test',
          revoked: false,
          created_at: gitlabTime(startedAt),
          description: null,
          scopes,
          user_id: 1,
          last_used_at: gitlabTime(Date.now()),
          active: true,
          expires_at: null,
        },
      };
    }
    if (head !== 'projects') throw new HttpError(404, { error: '404 Not Found' });

    if (id === undefined && method === 'GET') {
      const orderBy = query.get('order_by') ?? 'created_at';
      const sort = query.get('sort') ?? 'desc';
      if (!['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'].includes(orderBy))
        throw gitlabBadParam('order_by');
      if (sort !== 'asc' && sort !== 'desc') throw gitlabBadParam('sort');
      const search = query.get('search')?.toLowerCase();
      const owned = bool(query.get('owned'), false);
      const listed = await Promise.all(
        repos
          .filter((r) => !search || r.name.toLowerCase().includes(search) || r.fullName.toLowerCase().includes(search))
          .filter((r) => !owned || isUser(r.owner))
          .map(async (r) => ({ repo: r, activity: (await lastPushOf(r.repo)) ?? r.createdAt })),
      );
      listed.sort((a, b) => {
        const order =
          orderBy === 'name' || orderBy === 'path'
            ? a.repo.name.localeCompare(b.repo.name)
            : orderBy === 'updated_at' || orderBy === 'last_activity_at'
              ? a.activity - b.activity
              : orderBy === 'created_at'
                ? a.repo.createdAt - b.repo.createdAt
                : 0;
        const tied = order || a.repo.id - b.repo.id;
        return sort === 'desc' ? -tied : tied;
      });
      const page = gitlabPage(listed, url);
      return { status: 200, body: await Promise.all(page.items.map((l) => gitlabProject(l.repo))), headers: page.headers };
    }
    const h = findProject(id);
    const repository = sub === 'repository' ? rest.shift() : undefined;

    if (sub === undefined && method === 'GET') return { status: 200, body: await gitlabProject(h) };
    if (repository === 'branches' && rest.length === 0 && method === 'GET') {
      const search = query.get('search');
      const heads = Object.entries(await h.repo.branchHeads())
        .filter(([branch]) => !search || branch.includes(search))
        .sort(([a], [b]) => a.localeCompare(b));
      const page = gitlabPage(heads, url);
      const items = await Promise.all(
        page.items.map(async ([branch, sha]) => {
          const commit = await commitOf(h.repo, sha);
          const isDefault = branch === h.repo.defaultBranch;
          return {
            name: branch,
            commit: commit ? gitlabCommitJson(h, commit) : { id: sha, short_id: sha.slice(0, 8) },
            merged: false,
            // GitLab protects a project's default branch unless told otherwise.
            protected: isDefault,
            developers_can_push: false,
            developers_can_merge: false,
            can_push: true,
            default: isDefault,
            web_url: `${baseUrl}/${h.fullName}/-/tree/${branch}`,
          };
        }),
      );
      return { status: 200, body: items, headers: page.headers };
    }
    if (repository === 'commits' && rest.length > 0 && method === 'GET') {
      const commit = await commitOf(h.repo, rest.join('/'));
      if (!commit) throw gitlabNotFound('Commit');
      return { status: 200, body: { ...gitlabCommitJson(h, commit), stats: null, status: null, last_pipeline: null } };
    }
    if (sub === 'hooks' && rest.length === 0 && method === 'GET') {
      const page = gitlabPage(
        [...storedHooks.values()].filter((s) => s.repo === h),
        url,
      );
      return { status: 200, body: page.items.map(gitlabHook), headers: page.headers };
    }
    if (sub === 'hooks' && rest.length === 0 && method === 'POST') {
      const input = await body();
      const hookUrl = str(input.url);
      if (!hookUrl) throw new HttpError(400, { error: 'url is missing' });
      // GitLab's defaults: push events on, everything else off.
      const events = GITLAB_HOOK_EVENTS.filter((event) => bool(input[event], event === 'push_events'));
      const recorded: RecordedHook = { id: nextHookId++, repo: h.fullName, url: hookUrl, events: [...events], active: true };
      const hookToken = str(input.token);
      if (hookToken) recorded.token = hookToken;
      const stored: StoredHook = { recorded, repo: h, createdAt: Date.now(), fields: input };
      storedHooks.set(recorded.id, stored);
      hooks.push(recorded);
      return { status: 201, body: gitlabHook(stored) };
    }
    if (sub === 'hooks' && rest.length === 1 && (method === 'GET' || method === 'DELETE')) {
      const stored = storedHooks.get(Number(rest[0]));
      if (!stored || stored.repo !== h) throw new HttpError(404, { message: '404 Not found' });
      if (method === 'GET') return { status: 200, body: gitlabHook(stored) };
      removeHook(stored.recorded.id);
      return { status: 204, body: null };
    }
    if (sub === 'statuses' && rest.length === 1 && method === 'POST') {
      const input = await body();
      const state = str(input.state);
      if (!state) throw new HttpError(400, { error: 'state is missing' });
      if (!['pending', 'running', 'success', 'failed', 'canceled', 'skipped'].includes(state)) throw gitlabBadParam('state');
      const commit = await commitOf(h.repo, rest[0]!);
      if (!commit) throw gitlabNotFound('Commit');
      const name = str(input.name) ?? str(input.context) ?? 'default';
      const recorded = recordStatus(h, commit.sha, state, input, name);
      const heads = await h.repo.branchHeads();
      const ref = str(input.ref) ?? Object.keys(heads).find((branch) => heads[branch] === commit.sha) ?? null;
      const now = gitlabTime(Date.now());
      const finished = ['success', 'failed', 'canceled', 'skipped'].includes(state);
      const statusId = nextStatusId++;
      return {
        status: 201,
        body: {
          id: statusId,
          sha: commit.sha,
          ref,
          status: state,
          name,
          target_url: recorded.target_url ?? null,
          description: recorded.description ?? null,
          created_at: now,
          started_at: state === 'pending' ? null : now,
          finished_at: finished ? now : null,
          allow_failure: false,
          coverage: null,
          // GitLab wraps an external status in a pipeline of its own.
          pipeline_id: statusId,
          author: gitlabUserMini(),
        },
      };
    }
    throw new HttpError(404, { error: '404 Not Found' });
  };

  // ---- GitLab OAuth -----------------------------------------------------------------------

  const oauthError = (status: number, error: string, description: string) =>
    new HttpError(status, { error, error_description: description }, { 'cache-control': 'no-store' });

  const issueToken = (scope: string): JsonObject => {
    const now = Date.now();
    const issued: OAuthToken = {
      access: randomBytes(32).toString('hex'),
      refresh: randomBytes(32).toString('hex'),
      scope,
      createdAt: now,
      expiresAt: now + 7200 * 1000,
      revoked: false,
    };
    oauthTokens.set(issued.access, issued);
    refreshTokens.set(issued.refresh, issued);
    return {
      access_token: issued.access,
      token_type: 'Bearer',
      expires_in: 7200,
      refresh_token: issued.refresh,
      scope,
      created_at: Math.floor(now / 1000),
    };
  };

  const oauth = async (
    method: string,
    action: string | undefined,
    url: URL,
    req: http.IncomingMessage,
    body: () => Promise<JsonObject>,
  ): Promise<Reply> => {
    const app = options.oauthApp;
    if (!app) throw new HttpError(404, { error: '404 Not Found' });
    if (action === 'authorize' && method === 'GET') {
      const q = url.searchParams;
      // Doorkeeper shows an error page (no redirect) for an unknown client or a missing redirect URI.
      if (q.get('client_id') !== app.clientId)
        throw oauthError(
          400,
          'invalid_client',
          'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
        );
      const redirectUri = q.get('redirect_uri');
      if (!redirectUri)
        throw oauthError(
          400,
          'invalid_redirect_uri',
          'The requested redirect uri is malformed or doesn\u2019t match client redirect URI.',
        );
      const target = new URL(redirectUri);
      const state = q.get('state');
      if (q.get('response_type') !== 'code') {
        target.searchParams.set('error', 'unsupported_response_type');
        target.searchParams.set('error_description', 'The authorization server does not support this response type.');
      } else {
        const code = randomBytes(32).toString('hex');
        oauthCodes.set(code, {
          clientId: app.clientId,
          redirectUri,
          scope: q.get('scope') || 'api',
          expiresAt: Date.now() + 10 * 60 * 1000,
          challenge: q.get('code_challenge'),
          challengeMethod: q.get('code_challenge_method'),
        });
        target.searchParams.set('code', code);
      }
      if (state !== null) target.searchParams.set('state', state);
      return { status: 302, body: null, headers: { location: target.toString() } };
    }
    if (action === 'token' && method === 'POST') {
      const input = await body();
      const basic = basicCredentials(req.headers.authorization);
      const clientId = basic?.user ?? str(input.client_id);
      const clientSecret = basic?.password ?? str(input.client_secret);
      if (clientId !== app.clientId || clientSecret !== app.clientSecret)
        throw oauthError(
          401,
          'invalid_client',
          'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
        );
      const invalidGrant = () =>
        oauthError(
          400,
          'invalid_grant',
          'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
        );
      const grant = str(input.grant_type);
      if (grant === 'authorization_code') {
        const codeValue = str(input.code) ?? '';
        const code = oauthCodes.get(codeValue);
        oauthCodes.delete(codeValue); // single use, even when this attempt fails
        if (!code || code.expiresAt < Date.now() || code.clientId !== clientId || code.redirectUri !== str(input.redirect_uri))
          throw invalidGrant();
        if (code.challenge !== null) {
          const verifier = str(input.code_verifier) ?? '';
          const computed = code.challengeMethod === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
          if (computed !== code.challenge) throw invalidGrant();
        }
        return { status: 200, body: issueToken(code.scope), headers: { 'cache-control': 'no-store' } };
      }
      if (grant === 'refresh_token') {
        const previous = refreshTokens.get(str(input.refresh_token) ?? '');
        if (!previous || previous.revoked) throw invalidGrant();
        // Refreshing retires the old pair, access token included.
        previous.revoked = true;
        refreshTokens.delete(previous.refresh);
        return { status: 200, body: issueToken(previous.scope), headers: { 'cache-control': 'no-store' } };
      }
      throw oauthError(
        400,
        'unsupported_grant_type',
        'The authorization grant type is not supported by the authorization server.',
      );
    }
    throw new HttpError(404, { error: '404 Not Found' });
  };

  // ---- shared -----------------------------------------------------------------------------

  const removeHook = (id: number) => {
    storedHooks.delete(id);
    const index = hooks.findIndex((hook) => hook.id === id);
    if (index >= 0) hooks.splice(index, 1);
  };

  const recordStatus = (h: HostedRepo, sha: string, state: string, input: JsonObject, context: string) => {
    const recorded: RecordedStatus = { repo: h.fullName, sha, state, context };
    const targetUrl = str(input.target_url);
    const description = str(input.description);
    if (targetUrl !== undefined) recorded.target_url = targetUrl;
    if (description !== undefined) recorded.description = description;
    statuses.push(recorded);
    return recorded;
  };

  /** The API token a request carries, the way each host reads it. */
  const tokenOf = (req: http.IncomingMessage, url: URL): string | null => {
    const authorization = req.headers.authorization ?? '';
    const bearer = /^(?:Bearer|token)\s+(\S+)$/i.exec(authorization);
    if (kind === 'github') {
      if (bearer) return bearer[1]!;
      return basicCredentials(authorization)?.password ?? null;
    }
    const privateToken = req.headers['private-token'];
    if (typeof privateToken === 'string') return privateToken;
    if (bearer && /^Bearer/i.test(authorization)) return bearer[1]!;
    return url.searchParams.get('private_token') ?? url.searchParams.get('access_token');
  };

  /** JSON or form bodies (GitLab also takes parameters in the query string). */
  const parseBody = async (req: http.IncomingMessage, url: URL): Promise<JsonObject> => {
    const raw = (await readBody(req)).toString('utf8');
    const type = req.headers['content-type'] ?? '';
    const fromQuery: JsonObject = kind === 'gitlab' ? Object.fromEntries(url.searchParams) : {};
    if (raw.trim() === '') return fromQuery;
    if (type.includes('application/x-www-form-urlencoded')) {
      const form: JsonObject = { ...fromQuery };
      for (const [key, value] of new URLSearchParams(raw)) {
        // `events[]=push&events[]=pull_request` style arrays.
        if (key.endsWith('[]')) {
          const name = key.slice(0, -2);
          const list = Array.isArray(form[name]) ? (form[name] as Json[]) : [];
          form[name] = [...list, value];
        } else form[key] = value;
      }
      return form;
    }
    try {
      const parsed: unknown = JSON.parse(raw);
      if (isObject(parsed)) return { ...fromQuery, ...parsed };
    } catch {
      // answered below
    }
    throw kind === 'github'
      ? new HttpError(400, { message: 'Problems parsing JSON', documentation_url: GITHUB_DOCS, status: '400' })
      : new HttpError(400, { error: 'The provided content-type is not supported.' });
  };

  const handleApi = async (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => {
    const method = req.method ?? 'GET';
    const record: RecordedApiRequest = { method, path: url.pathname, query: url.search.replace(/^\?/, ''), status: 0 };
    requests.push(record);
    const send = (status: number, body: Json | null, headers: Record<string, string> = {}) => {
      record.status = status;
      req.resume();
      const common: Record<string, string> =
        kind === 'github'
          ? {
              'x-github-media-type': 'github.v3; format=json',
              'x-github-request-id': randomBytes(8).toString('hex').toUpperCase(),
            }
          : { 'x-request-id': randomBytes(13).toString('hex') };
      if (body === null) {
        res.writeHead(status, { ...common, ...headers });
        res.end();
      } else {
        const text = JSON.stringify(body);
        res.writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(Buffer.byteLength(text)),
          ...common,
          ...headers,
        });
        res.end(text);
      }
    };
    try {
      if (failStatus !== null) {
        const reason = http.STATUS_CODES[failStatus] ?? 'Error';
        throw new HttpError(
          failStatus,
          kind === 'github'
            ? { message: reason, documentation_url: GITHUB_DOCS, status: String(failStatus) }
            : { message: `${failStatus} ${reason}` },
          failStatus === 429 || failStatus === 503 ? { 'retry-after': '1' } : {},
        );
      }
      // Split before decoding: GitLab names projects as one %2F-encoded segment.
      const rawSegments = url.pathname.split('/').filter(Boolean);
      const body = () => parseBody(req, url);
      let reply: Reply;
      if (kind === 'gitlab' && rawSegments[0] === 'oauth') {
        reply = await oauth(method, rawSegments[1], url, req, body);
      } else {
        const segments = rawSegments.slice(2).map((segment) => decodeURIComponent(segment));
        const presented = tokenOf(req, url);
        const viaOAuth = presented !== null && presented !== token && validOAuthToken(presented);
        if (presented !== token && !viaOAuth) {
          throw kind === 'github'
            ? new HttpError(401, {
                message: presented === null ? 'Requires authentication' : 'Bad credentials',
                documentation_url: GITHUB_DOCS,
                status: '401',
              })
            : new HttpError(401, { message: '401 Unauthorized' });
        }
        reply =
          kind === 'github'
            ? await githubApi(method, segments, url, body)
            : await gitlabApi(method, segments, url, body, viaOAuth);
      }
      send(reply.status, reply.body, reply.headers);
    } catch (error) {
      if (error instanceof HttpError) send(error.status, error.body, error.headers);
      else if (error instanceof URIError)
        send(400, kind === 'github' ? { message: 'Bad Request' } : { error: '400 Bad Request' });
      else send(500, { message: error instanceof Error ? error.message : String(error) });
    }
  };

  /** Everything else is git smart-HTTP: streamed to the git server as is, both ways. */
  const proxy = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const headers = withoutHopByHop(req.headers);
    // GitLab takes an OAuth access token as the git password (`oauth2:TOKEN`); the git server behind knows only the PAT.
    const credentials = basicCredentials(req.headers.authorization);
    if (credentials && credentials.password !== token && validOAuthToken(credentials.password))
      headers.authorization = `Basic ${Buffer.from(`${credentials.user}:${token}`).toString('base64')}`;
    const upstream = http.request(
      { host: '127.0.0.1', port: inner.port, method: req.method, path: req.url, headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, withoutHopByHop(answer.headers));
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', (error) => {
      if (res.headersSent) res.destroy();
      else {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`git server unreachable: ${error.message}\n`);
      }
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', baseUrl);
    const isApi =
      url.pathname === apiPrefix ||
      url.pathname.startsWith(`${apiPrefix}/`) ||
      (kind === 'gitlab' && url.pathname.startsWith('/oauth/'));
    if (isApi) void handleApi(req, res, url);
    else proxy(req, res);
  });

  const createRepo: GitHostStandIn['createRepo'] = async (fullName, files, repoOptions = {}) => {
    const parts = fullName.split('/');
    if (kind === 'github' ? parts.length !== 2 : parts.length < 2)
      throw new Error(`Not a ${kind === 'github' ? 'GitHub owner/name' : 'GitLab namespace/name'}: ${fullName}`);
    if (findRepo(fullName)) throw new Error(`The stand-in already has a repository ${fullName}`);
    const created = await inner.createRepo(fullName, files, { branch: repoOptions.branch, empty: repoOptions.empty });
    // The working copy still pushes to the git server directly; clients get the stand-in's URL.
    const repo: TestRepo = { ...created, url: `${baseUrl}/${fullName}.git` };
    repos.push({
      id: nextRepoId++,
      fullName,
      owner: parts.slice(0, -1).join('/'),
      name: parts[parts.length - 1]!,
      private: repoOptions.private ?? false,
      description: repoOptions.description ?? null,
      createdAt: Date.now(),
      repo,
    });
    return repo;
  };

  return {
    kind,
    port,
    baseUrl,
    apiUrl,
    token,
    createRepo,
    hooks,
    statuses,
    requests,
    failApiWith: (status) => {
      failStatus = status;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
      await inner.close();
    },
  };
}
