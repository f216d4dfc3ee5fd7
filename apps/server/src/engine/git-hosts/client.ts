/**
 * What the platform asks a git host through its REST API (GitHub's v3, GitLab's v4): who a token
 * is, the repositories and branches it reaches, webhooks and commit statuses. One interface, one
 * implementation per host; every request goes through the outbound guard.
 */
import { type OutboundPolicy, outboundFetch, outboundRefusal } from '../../lib/outbound';

export type GitHostKind = 'github' | 'gitlab';

export type HostAccount = { login: string; id: string; type: string };

export type HostRepository = {
  externalId: string;
  owner: string;
  name: string;
  fullName: string;
  description: string | null;
  defaultBranch: string;
  private: boolean;
  cloneUrl: string;
  htmlUrl: string;
  pushedAt: Date | null;
};

export type HostBranch = { name: string; commitSha: string; protected: boolean };

/** A repository as the host's API addresses it: GitLab by numeric id, GitHub by owner/name. */
export type RepositoryRef = { externalId: string; fullName: string };

export type CommitState = 'pending' | 'success' | 'failure' | 'error';

export interface GitHostClient {
  readonly kind: GitHostKind;
  readonly apiUrl: string;
  /** The token's account and scopes; throws GitHostError('auth') for a token the host refuses. */
  whoami(): Promise<{ account: HostAccount; scopes: string[] }>;
  /** Every repository the token reaches (all pages, up to MAX_ITEMS). */
  listRepositories(): Promise<HostRepository[]>;
  getRepository(fullName: string): Promise<HostRepository>;
  listBranches(repo: RepositoryRef): Promise<HostBranch[]>;
  /** Registers a push (and pull/merge request) webhook; answers the host's hook id. */
  createHook(repo: RepositoryRef, hook: { url: string; secret: string }): Promise<string>;
  /** Removes a hook; a hook already gone is not an error. */
  deleteHook(repo: RepositoryRef, hookId: string): Promise<void>;
  setCommitStatus(
    repo: RepositoryRef,
    sha: string,
    status: { state: CommitState; targetUrl?: string; description: string; context: string },
  ): Promise<void>;
}

export type GitHostErrorKind = 'auth' | 'scope' | 'not_found' | 'unreachable' | 'refused' | 'host';

/** A failure talking to the host, with a message fit for the user (status: the host's HTTP status). */
export class GitHostError extends Error {
  constructor(
    readonly kind: GitHostErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** No account is listed past this many repositories or branches: a guard against a host that pages forever. */
export const MAX_ITEMS = 5000;
const REQUEST_TIMEOUT_MS = 10_000;

export type HostRequest = {
  method?: 'GET' | 'POST' | 'DELETE';
  body?: unknown;
  /** Statuses that are not errors (a 404 on DELETE, say). */
  accept?: number[];
};

/**
 * One JSON request to a host's API with its auth headers: connection failures, timeouts, 401,
 * 403 and 404 become GitHostErrors whose messages name the host.
 */
export async function hostRequest(
  url: string,
  headers: Record<string, string>,
  policy: OutboundPolicy,
  request: HostRequest = {},
): Promise<{ status: number; headers: Headers; json: unknown }> {
  const host = new URL(url).host;
  let response: Response;
  try {
    response = await outboundFetch(
      url,
      {
        method: request.method ?? 'GET',
        headers: {
          accept: 'application/json',
          'user-agent': 'Launchbay',
          ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: request.body !== undefined ? JSON.stringify(request.body) : undefined,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      },
      policy,
    );
  } catch (error) {
    const refusal = outboundRefusal(error);
    if (refusal) throw new GitHostError('refused', refusal.message);
    if ((error as Error).name === 'TimeoutError')
      throw new GitHostError('unreachable', `${host} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`);
    throw new GitHostError('unreachable', `Cannot connect to ${host}: check the base URL`);
  }
  const text = await response.text();
  let json: unknown = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  const { status } = response;
  if ((status >= 200 && status < 300) || request.accept?.includes(status)) return { status, headers: response.headers, json };
  if (status >= 300 && status < 400)
    throw new GitHostError('host', `${host} answered with a redirect (HTTP ${status}): check the base URL`, status);
  if (status === 401)
    throw new GitHostError('auth', `${host} refused the token (HTTP 401): it is wrong, expired or revoked`, status);
  if (status === 403)
    throw new GitHostError('scope', `${host} does not allow this with the token (HTTP 403)${hostMessage(json)}`, status);
  if (status === 404) throw new GitHostError('not_found', `Not found on ${host} (HTTP 404)${hostMessage(json)}`, status);
  throw new GitHostError('host', `${host} answered HTTP ${status}${hostMessage(json)}`, status);
}

function hostMessage(json: unknown): string {
  if (typeof json !== 'object' || json === null) return '';
  const message = (json as { message?: unknown }).message ?? (json as { error?: unknown }).error;
  return typeof message === 'string' && message ? `: ${message.slice(0, 200)}` : '';
}

/** The next page's URL from a `Link` header (GitHub; GitLab sends it too), or null. */
export function nextLink(headers: Headers): string | null {
  const link = headers.get('link');
  if (!link) return null;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (match?.[1]) return match[1];
  }
  return null;
}

/** Follows `Link: rel="next"` from `firstUrl`, mapping each page's items, up to MAX_ITEMS. */
export async function allPages<T>(
  firstUrl: string,
  headers: Record<string, string>,
  policy: OutboundPolicy,
  map: (item: unknown) => T | null,
): Promise<T[]> {
  const items: T[] = [];
  let url: string | null = firstUrl;
  const origin = new URL(firstUrl).origin;
  while (url && items.length < MAX_ITEMS) {
    const page = await hostRequest(url, headers, policy);
    if (!Array.isArray(page.json)) throw new GitHostError('host', `${new URL(url).host} answered something other than a list`);
    for (const item of page.json) {
      const value = map(item);
      if (value !== null) items.push(value);
    }
    url = nextLink(page.headers);
    // A next link elsewhere would carry the token to another host.
    if (url && new URL(url).origin !== origin) url = null;
  }
  return items.slice(0, MAX_ITEMS);
}

export function str(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return null;
}

export function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function dateOrNull(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}
