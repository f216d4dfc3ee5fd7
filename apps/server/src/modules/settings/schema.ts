import { integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Platform settings as key/value rows: a missing key means the default. */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  updatedBy: integer('updated_by'),
});
