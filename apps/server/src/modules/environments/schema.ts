import { boolean, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
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
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('environments_project_slug').on(t.projectId, t.slug),
    index('environments_current_deployment').on(t.currentDeploymentId),
  ],
);
