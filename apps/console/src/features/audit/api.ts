import { type AuditLog, auditLogListResponseSchema, auditLogSchema } from '@launchbay/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { api, isApiError } from '@/lib/api';

export const AUDIT_PAGE_SIZE = 50;

export interface AuditQuery {
  page: number;
  actor?: string;
  action?: string;
  target_type?: string;
  target_id?: string;
  /** ISO date-times (the server wants an offset; toISOString gives 'Z'). */
  from?: string;
  to?: string;
}

export type AuditLogPage = z.infer<typeof auditLogListResponseSchema>;

const noRetryOn4xx = (failureCount: number, error: unknown) =>
  failureCount < 2 && !(isApiError(error) && error.status >= 400 && error.status < 500);

export function useAuditLogs(query: AuditQuery) {
  return useQuery({
    queryKey: ['audit', 'logs', query],
    queryFn: ({ signal }) =>
      api('/audit/logs', { signal, query: { ...query, per_page: AUDIT_PAGE_SIZE }, response: auditLogListResponseSchema }),
    placeholderData: keepPreviousData,
    retry: noRetryOn4xx,
  });
}

export function useAuditLog(id: number | null, initial?: AuditLog) {
  return useQuery({
    queryKey: ['audit', 'log', id],
    queryFn: ({ signal }) => api(`/audit/logs/${id}`, { signal, response: auditLogSchema }),
    enabled: id !== null,
    initialData: initial,
    retry: noRetryOn4xx,
  });
}
