import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { projects } from '../projects/schema';

/**
 * Where a project runs: production (the project's branch) and any others (staging, previews).
 * `currentDeploymentId` is the deployment that takes the environment's traffic.
 */
export const environments = pgTable(
  'environments',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Part of the address: `{project}-{slug}`; `production` serves at the project's own name. */
    slug: text('slug').notNull(),
    branch: text('branch').notNull(),
    isProduction: boolean('is_production').notNull().default(false),
    currentDeploymentId: integer('current_deployment_id'),
    /** Limits per process; null = the platform's default (none). */
    memoryMb: integer('memory_mb'),
    cpuPercent: integer('cpu_percent'),
    instances: integer('instances').notNull().default(1),
    /** The address label when it is not `{project}-{slug}` (previews: from the settings' template, e.g. `pr-42-shop`). */
    hostLabel: text('host_label'),
    /**
     * A pull-request preview: the PR it deploys and where it stands. `awaiting_approval`: opened
     * from a fork, nothing builds until someone approves it in the console; `closed`: stopped.
     */
    prNumber: integer('pr_number'),
    prTitle: text('pr_title'),
    prUrl: text('pr_url'),
    prAuthor: text('pr_author'),
    prHeadRepo: text('pr_head_repo'),
    prHeadSha: text('pr_head_sha'),
    prFromFork: boolean('pr_from_fork').notNull().default(false),
    prState: text('pr_state'),
    prApprovedBy: integer('pr_approved_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('environments_project_slug').on(t.projectId, t.slug),
    uniqueIndex('environments_project_pr').on(t.projectId, t.prNumber),
    check('environments_pr_state_check', sql`${t.prState} IS NULL OR ${t.prState} IN ('awaiting_approval', 'active', 'closed')`),
    index('environments_current_deployment').on(t.currentDeploymentId),
  ],
);
