/**
 * Pull-request previews: a pull request opened or updated deploys its head commit to an
 * environment of its own (`pr-{number}`), at an address from the settings' template, with only
 * the env vars marked for previews. One from a fork waits for someone's approval in the console
 * before anything builds (its code would run with those vars), and again after each new commit.
 * Closing or merging it stops the preview and removes its environment, builds and logs.
 */
import { type Preview, type PreviewState, previewAddressLabel } from '@launchbay/contract';
import { and, desc, eq, isNotNull } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { conflict, notFound } from '../../lib/errors';
import { deployments } from '../deployments/schema';
import { publishRoutes, releaseEnvironmentDeployments, startDeployment } from '../deployments/service';
import { environments } from '../environments/schema';
import { environmentUrl } from '../environments/service';
import { reportCommitStatus } from '../git-providers/service';
import type { ProjectRow } from '../projects/service';
import { getSettings } from '../settings/service';

type EnvironmentRow = typeof environments.$inferSelect;

/** What the platform reads from a GitHub pull_request or a GitLab Merge Request Hook. */
export type PullRequestEvent = {
  /** `update`: opened, reopened or new commits; `edit`: only the title or such; `close`: closed or merged. */
  kind: 'update' | 'edit' | 'close' | 'other';
  action: string;
  number: number;
  title: string;
  url: string | null;
  author: string | null;
  headRef: string;
  headSha: string | null;
  headRepo: string | null;
  fromFork: boolean;
};

export type PreviewDecision = {
  outcome: 'deployed' | 'ignored' | 'awaiting_approval' | 'removed';
  detail: string;
  deploymentId?: number | null;
};

async function findPreview(ctx: AppContext, projectId: number, prNumber: number): Promise<EnvironmentRow | undefined> {
  const [row] = await ctx.db
    .select()
    .from(environments)
    .where(and(eq(environments.projectId, projectId), eq(environments.prNumber, prNumber)))
    .limit(1);
  return row;
}

export async function handlePullRequest(ctx: AppContext, project: ProjectRow, event: PullRequestEvent): Promise<PreviewDecision> {
  const existing = await findPreview(ctx, project.id, event.number);
  if (event.kind === 'close') {
    if (!existing) return { outcome: 'ignored', detail: `Pull request #${event.number} has no preview` };
    await closePreview(ctx, existing);
    return {
      outcome: 'removed',
      detail: `Pull request #${event.number} was ${event.action}: its preview was stopped and removed`,
    };
  }
  if (event.kind === 'other')
    return { outcome: 'ignored', detail: `The pull request action ${event.action} does not change the preview` };
  const settings = await getSettings(ctx);
  if (!settings.preview_environments_enabled || !project.previewsEnabled) {
    const where = settings.preview_environments_enabled ? 'for this project' : 'in the platform settings';
    return { outcome: 'ignored', detail: `Pull request previews are off ${where}` };
  }
  if (event.kind === 'edit') {
    if (existing)
      await ctx.db
        .update(environments)
        .set({ prTitle: event.title, updatedAt: new Date() })
        .where(eq(environments.id, existing.id));
    return { outcome: 'ignored', detail: `Pull request #${event.number} was edited: nothing to build` };
  }
  if (!event.headSha) return { outcome: 'ignored', detail: `Pull request #${event.number} names no commit` };

  const state: PreviewState = event.fromFork ? 'awaiting_approval' : 'active';
  const fields = {
    branch: event.headRef,
    prTitle: event.title,
    prUrl: event.url,
    prAuthor: event.author,
    prHeadRepo: event.headRepo,
    prHeadSha: event.headSha,
    prFromFork: event.fromFork,
    prState: state,
    prApprovedBy: null,
    updatedAt: new Date(),
  };
  let preview: EnvironmentRow;
  if (existing) {
    const [updated] = await ctx.db.update(environments).set(fields).where(eq(environments.id, existing.id)).returning();
    preview = updated ?? existing;
  } else {
    const [created] = await ctx.db
      .insert(environments)
      .values({
        ...fields,
        projectId: project.id,
        name: `PR #${event.number}`,
        slug: `pr-${event.number}`,
        hostLabel: previewAddressLabel(settings.preview_address_template, event.number, project.slug),
        isProduction: false,
        prNumber: event.number,
      })
      .returning();
    if (!created) throw new Error('the preview environment was not created');
    preview = created;
  }
  if (state === 'awaiting_approval') {
    await reportCommitStatus(ctx, project, event.headSha, {
      state: 'pending',
      description: 'A preview of a pull request from a fork waits for approval in Launchbay',
    });
    return {
      outcome: 'awaiting_approval',
      detail: `Pull request #${event.number} comes from the fork ${event.headRepo ?? '(deleted)'}: its preview waits for approval in the console`,
    };
  }
  const deployment = await deployPreview(ctx, project, preview, null);
  return {
    outcome: 'deployed',
    detail: `Deploying ${event.headSha.slice(0, 7)} of pull request #${event.number} to its preview`,
    deploymentId: deployment.id,
  };
}

async function deployPreview(ctx: AppContext, project: ProjectRow, preview: EnvironmentRow, createdBy: number | null) {
  const sha = preview.prHeadSha;
  const deployment = await startDeployment(ctx, {
    project,
    environment: preview,
    trigger: 'preview',
    commit: sha,
    branch: preview.branch,
    createdBy,
  });
  if (sha) {
    await reportCommitStatus(ctx, project, sha, {
      state: 'pending',
      description: 'Building the preview',
      targetUrl: await environmentUrl(ctx, project.slug, preview),
    });
  }
  return deployment;
}

/** Someone looked at a fork's pull request and lets its current commit build. */
export async function approvePreview(ctx: AppContext, project: ProjectRow, environmentId: number, userId: number) {
  const preview = await getPreviewRow(ctx, project.id, environmentId);
  if (preview.prState !== 'awaiting_approval')
    throw conflict(`The preview of pull request #${preview.prNumber} is not waiting for approval`);
  const [approved] = await ctx.db
    .update(environments)
    .set({ prState: 'active', prApprovedBy: userId, updatedAt: new Date() })
    .where(and(eq(environments.id, preview.id), eq(environments.prState, 'awaiting_approval')))
    .returning();
  if (!approved) throw conflict(`The preview of pull request #${preview.prNumber} was approved already`);
  const deployment = await deployPreview(ctx, project, approved, userId);
  return { preview: approved, deployment };
}

/** Stops the preview's processes, removes its builds and its environment, and takes its address off the edge. */
export async function closePreview(ctx: AppContext, preview: EnvironmentRow): Promise<void> {
  await releaseEnvironmentDeployments(ctx, preview.id, `Pull request #${preview.prNumber} was closed`);
  await ctx.db.delete(environments).where(eq(environments.id, preview.id));
  await publishRoutes(ctx, { waitMs: 2000 });
}

export async function getPreviewRow(ctx: AppContext, projectId: number, environmentId: number): Promise<EnvironmentRow> {
  const [row] = await ctx.db
    .select()
    .from(environments)
    .where(and(eq(environments.projectId, projectId), eq(environments.id, environmentId), isNotNull(environments.prNumber)))
    .limit(1);
  if (!row) throw notFound(`Preview ${environmentId} not found in project ${projectId}`);
  return row;
}

export async function toPreview(ctx: AppContext, project: ProjectRow, row: EnvironmentRow): Promise<Preview> {
  const [last] = await ctx.db
    .select({ id: deployments.id, status: deployments.status, commitSha: deployments.commitSha })
    .from(deployments)
    .where(eq(deployments.environmentId, row.id))
    .orderBy(desc(deployments.id))
    .limit(1);
  return {
    environment_id: row.id,
    pr_number: row.prNumber ?? 0,
    title: row.prTitle ?? '',
    pr_url: row.prUrl,
    author: row.prAuthor,
    branch: row.branch,
    head_sha: row.prHeadSha,
    from_fork: row.prFromFork,
    head_repo: row.prHeadRepo,
    state: (row.prState ?? 'active') as PreviewState,
    url: await environmentUrl(ctx, project.slug, row),
    deployment_id: last?.id ?? null,
    deployment_status: last?.status ?? null,
    deployment_commit_sha: last?.commitSha ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function listPreviews(ctx: AppContext, project: ProjectRow): Promise<Preview[]> {
  const rows = await ctx.db
    .select()
    .from(environments)
    .where(and(eq(environments.projectId, project.id), isNotNull(environments.prNumber)))
    .orderBy(desc(environments.prNumber));
  return Promise.all(rows.map((row) => toPreview(ctx, project, row)));
}
