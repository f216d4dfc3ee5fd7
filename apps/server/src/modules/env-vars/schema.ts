import { boolean, index, integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { environments } from '../environments/schema';
import { projects } from '../projects/schema';

/** A project's environment variable; the value sealed with the platform's SecretBox. */
export const envVars = pgTable(
  'env_vars',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    valueSealed: text('value_sealed').notNull(),
    /** Given to pull-request previews too: production secrets stay out of previews unless marked for them. */
    includeInPreviews: boolean('include_in_previews').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('env_vars_project').on(t.projectId, t.key)],
);

/** Which environments a variable applies to; one key has at most one value per environment (checked by the service). */
export const envVarEnvironments = pgTable(
  'env_var_environments',
  {
    envVarId: integer('env_var_id')
      .notNull()
      .references(() => envVars.id, { onDelete: 'cascade' }),
    environmentId: integer('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.envVarId, t.environmentId] }), index('env_var_environments_env').on(t.environmentId)],
);
