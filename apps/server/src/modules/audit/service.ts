import type { Db } from '../../db/client';
import { auditLogs } from './schema';

/** One audit row as stored; `summary` is redacted JSON (see `redact` in recorder.ts). */
export type AuditEvent = typeof auditLogs.$inferInsert;

/**
 * Writes one audit row. Throws when the row cannot be written: a caller that changed something
 * must let the change fail with it (inside a request, the request transaction rolls both back).
 */
export async function recordAuditEvent(db: Db, event: AuditEvent): Promise<void> {
  await db.insert(auditLogs).values(event);
}
