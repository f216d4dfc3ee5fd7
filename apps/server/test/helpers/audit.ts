import type { ApiKey, AuditLog, Permission } from '@launchbay/contract';
import type { Api, ApiOptions } from './api';

/** Helpers for the API-key, settings and audit-log tests. */

export type AuditPage = { logs: AuditLog[]; total: number; page: number; per_page: number };
export type CreatedKey = ApiKey & { secret: string };

let keyCounter = 0;

/** Creates an API key for whoever `token` signs in as; throws unless the answer is 201. */
export async function createKey(
  api: Api,
  token: string,
  permissions: Permission[],
  extra: { name?: string; expires_at?: string | null } = {},
): Promise<CreatedKey> {
  const response = await api.call<CreatedKey>('POST', '/api-keys', {
    token,
    body: {
      name: extra.name ?? `key ${++keyCounter}`,
      permissions,
      ...(extra.expires_at !== undefined ? { expires_at: extra.expires_at } : {}),
    },
  });
  if (response.status !== 201) throw new Error(`could not create a key: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** One page of the audit log; throws unless the answer is 200. */
export async function auditPage(api: Api, token: string, query: Record<string, string | number> = {}): Promise<AuditPage> {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const response = await api.call<AuditPage>('GET', `/audit/logs${search ? `?${search}` : ''}`, { token });
  if (response.status !== 200)
    throw new Error(`could not read the audit log: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** The id of the newest audit row (0 when there is none). */
export async function lastAuditId(api: Api, token: string): Promise<number> {
  const page = await auditPage(api, token, { per_page: 1 });
  return page.logs[0]?.id ?? 0;
}

/** Every audit row with an id above `afterId`, oldest first, read through the API. */
export async function auditRowsAfter(api: Api, token: string, afterId: number): Promise<AuditLog[]> {
  const rows: AuditLog[] = [];
  for (let page = 1; ; page++) {
    const answer = await auditPage(api, token, { per_page: 200, page });
    const newer = answer.logs.filter((row) => row.id > afterId);
    rows.push(...newer);
    if (newer.length < answer.logs.length || answer.logs.length < 200) break;
  }
  return rows.reverse();
}

/** Every audit row there is, newest first. */
export async function allAuditRows(api: Api, token: string): Promise<AuditLog[]> {
  return (await auditRowsAfter(api, token, 0)).reverse();
}

/** Runs one call and returns it with the audit rows it wrote. */
export async function callAudited<T = Record<string, unknown>>(
  api: Api,
  adminToken: string,
  method: string,
  path: string,
  options: ApiOptions = {},
) {
  const before = await lastAuditId(api, adminToken);
  const response = await api.call<T>(method, path, options);
  const rows = await auditRowsAfter(api, adminToken, before);
  return { response, rows };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until `done` holds for its value, or fails after `timeoutMs`. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 3_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) return value;
    await sleep(50);
  }
}
