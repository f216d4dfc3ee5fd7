/**
 * Push webhooks from GitHub and GitLab: a delivery is verified (GitHub's HMAC-SHA256 signature of
 * the raw body, GitLab's secret token) against the project's own secret before anything is read,
 * claimed by its delivery id (the same delivery twice deploys once), and a push to an
 * environment's branch deploys exactly the pushed commit. Every delivery is kept with its outcome.
 */
import crypto from 'node:crypto';
import type { WebhookDelivery } from '@launchbay/contract';
import { and, desc, eq, lt } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { notFound, unauthorized } from '../../lib/errors';
import { startDeployment } from '../deployments/service';
import { listEnvironmentRows } from '../environments/service';
import { handlePullRequest, type PullRequestEvent } from '../previews/service';
import type { ProjectRow } from '../projects/service';
import { webhookDeliveries } from './schema';

/** Deliveries kept per project (the console shows the last ones). */
const KEPT_DELIVERIES = 200;
const ZERO_SHA = /^0+$/;

type Outcome = WebhookDelivery['outcome'];

export type IncomingWebhook = {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
};

type Verified = {
  providerType: 'github' | 'gitlab';
  event: string;
  deliveryId: string | null;
  payload: Record<string, unknown>;
};

const header = (headers: IncomingWebhook['headers'], name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && crypto.timingSafeEqual(left, right);
}

/**
 * Checks who sent a delivery: GitHub signs the raw body with the secret (X-Hub-Signature-256),
 * GitLab sends the secret itself (X-Gitlab-Token). Throws 401 for anything else.
 */
export function verifyDelivery(project: ProjectRow, secret: string, incoming: IncomingWebhook): Verified {
  const githubEvent = header(incoming.headers, 'x-github-event');
  const gitlabEvent = header(incoming.headers, 'x-gitlab-event');
  if (githubEvent) {
    const signature = header(incoming.headers, 'x-hub-signature-256') ?? '';
    const expected = `sha256=${crypto.createHmac('sha256', secret).update(incoming.rawBody).digest('hex')}`;
    if (!sameSecret(signature, expected))
      throw unauthorized(`The webhook signature for ${project.name} does not match: nothing was deployed`);
    return {
      providerType: 'github',
      event: githubEvent,
      deliveryId: header(incoming.headers, 'x-github-delivery') ?? null,
      payload: parse(incoming.rawBody),
    };
  }
  if (gitlabEvent) {
    const token = header(incoming.headers, 'x-gitlab-token') ?? '';
    if (!sameSecret(token, secret))
      throw unauthorized(`The webhook token for ${project.name} does not match: nothing was deployed`);
    const deliveryId = header(incoming.headers, 'x-gitlab-event-uuid') ?? header(incoming.headers, 'idempotency-key') ?? null;
    return { providerType: 'gitlab', event: gitlabEvent, deliveryId, payload: parse(incoming.rawBody) };
  }
  throw unauthorized('Not a GitHub or GitLab webhook delivery (no X-GitHub-Event or X-Gitlab-Event header)');
}

function parse(raw: Buffer): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const str = (value: unknown) => (typeof value === 'string' ? value : null);

type Decision = {
  outcome: Outcome;
  detail: string;
  ref: string | null;
  sha: string | null;
  action: string | null;
  deploymentId?: number | null;
};

/** Claims the delivery by its id: false when it was received before (the host retried it). */
async function claim(ctx: AppContext, projectId: number, verified: Verified): Promise<number | null> {
  const [row] = await ctx.db
    .insert(webhookDeliveries)
    .values({
      projectId,
      providerType: verified.providerType,
      deliveryId: verified.deliveryId,
      event: verified.event,
      action: str(verified.payload.action) ?? str(verified.payload.object_kind),
      outcome: 'ignored',
      detail: 'Being handled',
    })
    .onConflictDoNothing()
    .returning({ id: webhookDeliveries.id });
  return row?.id ?? null;
}

/** Handles one verified delivery and records what came of it. */
export async function handleDelivery(
  ctx: AppContext,
  project: ProjectRow,
  verified: Verified,
): Promise<Decision & { id: number | null }> {
  const id = await claim(ctx, project.id, verified);
  if (id === null) {
    return {
      id: null,
      outcome: 'duplicate',
      detail: `Delivery ${verified.deliveryId} was received before: nothing more was done`,
      ref: null,
      sha: null,
      action: null,
    };
  }
  let decision: Decision;
  try {
    decision = await decide(ctx, project, verified);
  } catch (error) {
    decision = { outcome: 'failed', detail: (error as Error).message, ref: null, sha: null, action: null };
  }
  await ctx.db
    .update(webhookDeliveries)
    .set({
      outcome: decision.outcome,
      detail: decision.detail.slice(0, 2000),
      ref: decision.ref,
      commitSha: decision.sha,
      ...(decision.action ? { action: decision.action } : {}),
      deploymentId: decision.deploymentId ?? null,
    })
    .where(eq(webhookDeliveries.id, id));
  await prune(ctx, project.id);
  return { id, ...decision };
}

async function decide(ctx: AppContext, project: ProjectRow, verified: Verified): Promise<Decision> {
  const { payload } = verified;
  const isPush = verified.event === 'push' || verified.event === 'Push Hook';
  if (verified.event === 'ping')
    return { outcome: 'ignored', detail: 'GitHub checked the webhook (ping)', ref: null, sha: null, action: null };
  if (verified.event === 'pull_request' || verified.event === 'Merge Request Hook') {
    const event = verified.providerType === 'github' ? githubPullRequest(payload) : gitlabMergeRequest(payload);
    if (!event)
      return { outcome: 'ignored', detail: 'The pull request payload could not be read', ref: null, sha: null, action: null };
    const decision = await handlePullRequest(ctx, project, event);
    return { ...decision, ref: `refs/heads/${event.headRef}`, sha: event.headSha, action: event.action };
  }
  if (!isPush) {
    return {
      outcome: 'ignored',
      detail: `The ${verified.event} event does not deploy anything`,
      ref: null,
      sha: null,
      action: str(payload.action),
    };
  }
  const ref = str(payload.ref);
  const after = str(payload.after);
  if (!ref?.startsWith('refs/heads/'))
    return { outcome: 'ignored', detail: `${ref ?? 'A ref'} is not a branch`, ref, sha: after, action: null };
  const branch = ref.slice('refs/heads/'.length);
  if (!after || ZERO_SHA.test(after) || payload.deleted === true)
    return { outcome: 'ignored', detail: `The branch ${branch} was deleted`, ref, sha: null, action: null };
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(after))
    return { outcome: 'ignored', detail: 'The push names no commit', ref, sha: null, action: null };
  if (!project.automaticDeploy)
    return { outcome: 'ignored', detail: 'Automatic deploys are off for this project', ref, sha: after, action: null };
  const environments = (await listEnvironmentRows(ctx, project.id)).filter((env) => env.branch === branch);
  if (environments.length === 0)
    return { outcome: 'ignored', detail: `No environment deploys the branch ${branch}`, ref, sha: after, action: null };
  let firstDeployment: number | null = null;
  for (const environment of environments) {
    const deployment = await startDeployment(ctx, { project, environment, trigger: 'webhook', commit: after, createdBy: null });
    firstDeployment ??= deployment.id;
  }
  const names = environments.map((env) => env.name).join(', ');
  return {
    outcome: 'deployed',
    detail: `Deploying ${after.slice(0, 7)} of ${branch} to ${names}`,
    ref,
    sha: after,
    action: null,
    deploymentId: firstDeployment,
  };
}

async function prune(ctx: AppContext, projectId: number) {
  const [edge] = await ctx.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.projectId, projectId))
    .orderBy(desc(webhookDeliveries.id))
    .offset(KEPT_DELIVERIES)
    .limit(1);
  if (edge)
    await ctx.db
      .delete(webhookDeliveries)
      .where(and(eq(webhookDeliveries.projectId, projectId), lt(webhookDeliveries.id, edge.id + 1)));
}

/** A delivery whose signature did not match: kept, so "my pushes stopped deploying" has an answer in the console. */
export async function recordRejected(ctx: AppContext, projectId: number, incoming: IncomingWebhook, reason: string) {
  const providerType = header(incoming.headers, 'x-gitlab-event') ? 'gitlab' : 'github';
  const event = header(incoming.headers, 'x-github-event') ?? header(incoming.headers, 'x-gitlab-event') ?? 'unknown';
  await ctx.db.insert(webhookDeliveries).values({
    projectId,
    providerType,
    // Not the sender's id: an unverified delivery must not block the real one with the same id.
    deliveryId: null,
    event: event.slice(0, 100),
    outcome: 'rejected',
    detail: reason,
  });
  await prune(ctx, projectId);
}

export async function listDeliveries(ctx: AppContext, projectId: number, limit = 50): Promise<WebhookDelivery[]> {
  const rows = await ctx.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.projectId, projectId))
    .orderBy(desc(webhookDeliveries.id))
    .limit(limit);
  return rows.map((row) => ({
    id: row.id,
    provider_type: row.providerType,
    delivery_id: row.deliveryId,
    event: row.event,
    action: row.action,
    ref: row.ref,
    commit_sha: row.commitSha,
    outcome: row.outcome as Outcome,
    detail: row.detail,
    deployment_id: row.deploymentId,
    received_at: row.receivedAt.toISOString(),
  }));
}

export function webhookSecret(ctx: AppContext, project: ProjectRow): string {
  if (!project.webhookSecretSealed) throw notFound(`Project ${project.id} takes no webhooks`);
  return ctx.box.open(project.webhookSecretSealed);
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

const GITHUB_UPDATES = new Set(['opened', 'reopened', 'synchronize', 'ready_for_review']);

/** A GitHub `pull_request` delivery; from a fork when its head repository is not the base one (or is gone). */
function githubPullRequest(payload: Record<string, unknown>): PullRequestEvent | null {
  const pr = record(payload.pull_request);
  const number = typeof payload.number === 'number' ? payload.number : typeof pr.number === 'number' ? pr.number : null;
  const action = str(payload.action) ?? '';
  const head = record(pr.head);
  const headRepo = str(record(head.repo).full_name);
  const baseRepo = str(record(record(pr.base).repo).full_name);
  if (number === null) return null;
  return {
    kind: action === 'closed' ? 'close' : GITHUB_UPDATES.has(action) ? 'update' : action === 'edited' ? 'edit' : 'other',
    action,
    number,
    title: str(pr.title) ?? `#${number}`,
    url: str(pr.html_url),
    author: str(record(pr.user).login),
    headRef: str(head.ref) ?? `pull/${number}`,
    headSha: str(head.sha),
    headRepo,
    fromFork: headRepo === null || headRepo !== baseRepo,
  };
}

/** A GitLab `Merge Request Hook`: an `update` with `oldrev` brought new commits, one without only changed the description. */
function gitlabMergeRequest(payload: Record<string, unknown>): PullRequestEvent | null {
  const attributes = record(payload.object_attributes);
  const number = typeof attributes.iid === 'number' ? attributes.iid : null;
  const action = str(attributes.action) ?? '';
  if (number === null) return null;
  const kind =
    action === 'close' || action === 'merge'
      ? 'close'
      : action === 'open' || action === 'reopen' || (action === 'update' && attributes.oldrev)
        ? 'update'
        : action === 'update'
          ? 'edit'
          : 'other';
  const source = record(attributes.source);
  return {
    kind,
    action,
    number,
    title: str(attributes.title) ?? `!${number}`,
    url: str(attributes.url),
    author: str(record(payload.user).username),
    headRef: str(attributes.source_branch) ?? `merge-requests/${number}`,
    headSha: str(record(attributes.last_commit).id),
    headRepo: str(source.path_with_namespace),
    fromFork: attributes.source_project_id !== attributes.target_project_id,
  };
}
