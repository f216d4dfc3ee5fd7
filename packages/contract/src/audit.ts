import { z } from 'zod';

export const auditLogSchema = z.object({
  id: z.number().int(),
  created_at: z.string(),
  actor_type: z.enum(['user', 'api_key', 'anonymous', 'system']),
  actor_user_id: z.number().int().nullable(),
  actor_api_key_id: z.number().int().nullable(),
  actor_label: z.string().nullable().describe('Email of the user, or name of the API key, at the time'),
  action: z.string().describe('e.g. users.create, auth.login, auth.login_failed'),
  target_type: z.string().nullable(),
  target_id: z.string().nullable(),
  summary: z.record(z.string(), z.unknown()).describe('What changed, with secrets redacted'),
  status_code: z.number().int(),
  method: z.string(),
  path: z.string(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
});
export type AuditLog = z.infer<typeof auditLogSchema>;

export const auditLogQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(200).default(50),
  actor: z.string().trim().max(200).optional().describe('Email, user id or API key name'),
  action: z.string().trim().max(100).optional().describe('Exact action, or a prefix ending in "." (e.g. "users.")'),
  target_type: z.string().trim().max(50).optional(),
  target_id: z.string().trim().max(100).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
});

export const auditLogListResponseSchema = z.object({
  logs: z.array(auditLogSchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});
