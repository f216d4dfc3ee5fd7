import { pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

export const projects = pgTable('projects', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  slug: text('slug').notNull().unique(),
  /** Where the project's favicon was found, if anywhere; served by GET /projects/{id}/favicon. */
  faviconUrl: text('favicon_url'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
