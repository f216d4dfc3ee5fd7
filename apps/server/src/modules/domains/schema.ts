import { boolean, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import type { AcmeChallengeInfo } from '../../engine/edge/acme';
import { environments } from '../environments/schema';
import { projects } from '../projects/schema';

/**
 * A domain the platform holds a certificate for (or is getting one): an exact name, or a wildcard
 * (`*.example.com`, DNS-01 only). The certificate chain and its key are sealed (lib/crypto); the
 * edge gets working copies as files (engine/edge/tls-files.ts). `served_*` is what the edge really
 * answered on its TLS port for this name, compared with the stored certificate.
 */
export const domains = pgTable('domains', {
  id: serial('id').primaryKey(),
  domain: text('domain').notNull().unique(),
  isWildcard: boolean('is_wildcard').notNull().default(false),
  /** `http-01` or `dns-01` (wildcards). */
  challengeType: text('challenge_type').notNull(),
  /** pending (no certificate yet), provisioning, active, failed. Expiry is read from expires_at. */
  status: text('status').notNull().default('pending'),
  lastError: text('last_error'),
  certificateSealed: text('certificate_sealed'),
  keySealed: text('key_sealed'),
  /** SHA-256 of the leaf certificate, lowercase hex without colons. */
  fingerprint: text('fingerprint'),
  issuedAt: timestamp('issued_at', { withTimezone: true }),
  expiresAt: timestamp('expires_at', { withTimezone: true }),
  /** Renewal failures in a row (backoff and the renewal-failure alert follow it). */
  renewalFailures: integer('renewal_failures').notNull().default(0),
  nextRenewalAt: timestamp('next_renewal_at', { withTimezone: true }),
  /** The last ssl_expiring alert (at most one a day per domain). */
  expiryAlertedAt: timestamp('expiry_alerted_at', { withTimezone: true }),
  /** match, mismatch (another or a default certificate), none (no certificate for the name), unreachable. */
  servedStatus: text('served_status'),
  servedFingerprint: text('served_fingerprint'),
  servedCheckedAt: timestamp('served_checked_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** One challenge of an order as the console shows it (and the edge answers, for HTTP-01), as the CA gave it. */
export type StoredChallenge = AcmeChallengeInfo;

/** The domain's ACME order in progress (one at a time): created, read, finalized or deleted through the API. */
export const domainOrders = pgTable('domain_orders', {
  id: serial('id').primaryKey(),
  domainId: integer('domain_id')
    .notNull()
    .unique()
    .references(() => domains.id, { onDelete: 'cascade' }),
  directoryUrl: text('directory_url').notNull(),
  orderUrl: text('order_url').notNull(),
  /** As the CA says: pending, ready, processing, valid, invalid. */
  status: text('status').notNull(),
  finalizeUrl: text('finalize_url').notNull(),
  challenges: jsonb('challenges').$type<StoredChallenge[]>().notNull().default([]),
  error: text('error'),
  expiresAt: timestamp('expires_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** The platform's ACME account per directory (the key sealed), made on first use. */
export const acmeAccounts = pgTable('acme_accounts', {
  directoryUrl: text('directory_url').primaryKey(),
  email: text('email'),
  keySealed: text('key_sealed').notNull(),
  accountUrl: text('account_url'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A project's own domain names: each served by one of its environments (the edge routes the name
 * to that environment's live deployment), or redirecting to another of its names (www to apex).
 */
export const projectDomains = pgTable('project_domains', {
  id: serial('id').primaryKey(),
  projectId: integer('project_id')
    .notNull()
    .references(() => projects.id, { onDelete: 'cascade' }),
  environmentId: integer('environment_id')
    .notNull()
    .references(() => environments.id, { onDelete: 'cascade' }),
  domain: text('domain').notNull().unique(),
  redirectTo: text('redirect_to'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A stored domain, as its service and the challenge checks read it. */
export type DomainRow = typeof domains.$inferSelect;
