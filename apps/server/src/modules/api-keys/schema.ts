import { boolean, index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from '../users/schema';

export const apiKeys = pgTable(
  'api_keys',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The first characters of the secret, shown so people can tell keys apart. */
    keyPrefix: text('key_prefix').notNull(),
    /** sha256 of the secret: the secret itself is never stored. */
    secretHash: text('secret_hash').notNull().unique(),
    permissions: text('permissions').array().notNull(),
    isActive: boolean('is_active').notNull().default(true),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    lastUsedIp: text('last_used_ip'),
  },
  (t) => [index('api_keys_user_idx').on(t.userId)],
);
