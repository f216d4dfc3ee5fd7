import {
  DEFAULT_HEALTH_CHECK,
  type LbHealthCheck,
  type LbRoute,
  lbHealthCheckSchema,
  lbRouteRequestSchema,
} from '@launchbay/contract';
import type { FieldErrors, Resolver, ResolverResult } from 'react-hook-form';
import type { z } from 'zod';

/*
 * The route form holds what people type (strings, a list of address rows, a target choice); it
 * becomes the API's request body and is checked with the contract's own schemas, so the form says
 * exactly what the server would. Server field errors (`target.upstreams.1`, `domain`...) are put
 * back on the fields that hold them.
 */

export type LbRouteRequest = z.output<typeof lbRouteRequestSchema>;
export type LbRouteUpdate = Omit<LbRouteRequest, 'domain'>;
export type LbUpstreamHealth = LbRoute['upstream_health'][number];
export type TargetKind = LbRoute['target']['kind'];

export interface RouteFormValues {
  domain: string;
  target_kind: TargetKind;
  /** Select values: '' until one is chosen. */
  project_id: string;
  environment_id: string;
  /** One row per address input; empty rows are left out of the request. */
  upstreams: { address: string }[];
  health_check: {
    enabled: boolean;
    path: string;
    interval_seconds: string;
    timeout_seconds: string;
  };
}

export const CHOOSE_PROJECT_MESSAGE = 'Choose a project';
export const CHOOSE_ENVIRONMENT_MESSAGE = 'Choose an environment';
export const WHOLE_SECONDS_MESSAGE = 'Enter a whole number of seconds';

export const EMPTY_ROUTE_FORM: RouteFormValues = {
  domain: '',
  target_kind: 'upstreams',
  project_id: '',
  environment_id: '',
  upstreams: [{ address: '' }],
  health_check: {
    enabled: DEFAULT_HEALTH_CHECK.enabled,
    path: DEFAULT_HEALTH_CHECK.path,
    interval_seconds: String(DEFAULT_HEALTH_CHECK.interval_seconds),
    timeout_seconds: String(DEFAULT_HEALTH_CHECK.timeout_seconds),
  },
};

/** An existing route as the form edits it. */
export function routeToForm(route: LbRoute): RouteFormValues {
  const { target, health_check: check } = route;
  return {
    domain: route.domain,
    target_kind: target.kind,
    project_id: target.kind === 'environment' ? String(target.project_id) : '',
    environment_id: target.kind === 'environment' ? String(target.environment_id) : '',
    upstreams:
      target.kind === 'upstreams' && target.upstreams.length > 0
        ? target.upstreams.map((address) => ({ address }))
        : [{ address: '' }],
    health_check: {
      enabled: check.enabled,
      path: check.path,
      interval_seconds: String(check.interval_seconds),
      timeout_seconds: String(check.timeout_seconds),
    },
  };
}

const WHOLE_NUMBER = /^\s*\d+\s*$/;

/**
 * The request body the form stands for, before the contract's check, and for each upstream of the
 * body the form row it came from (empty rows are left out, so body index 1 may be row 2).
 */
export function toRequestInput(values: RouteFormValues): { body: unknown; rowOf: number[] } {
  const rows = values.upstreams.map((row, index) => ({ address: row.address.trim(), index })).filter((row) => row.address !== '');
  const target =
    values.target_kind === 'environment'
      ? { kind: 'environment', project_id: Number(values.project_id), environment_id: Number(values.environment_id) }
      : { kind: 'upstreams', upstreams: rows.map((row) => row.address) };
  const check = values.health_check;
  const typed = {
    enabled: check.enabled,
    path: check.path,
    interval_seconds: Number(check.interval_seconds),
    timeout_seconds: Number(check.timeout_seconds),
  };
  // Switched off, the (hidden) settings are kept when they are valid and reset otherwise: they do not block the save.
  const health_check: unknown =
    check.enabled || lbHealthCheckSchema.safeParse(typed).success ? typed : { ...DEFAULT_HEALTH_CHECK, enabled: false };
  return { body: { domain: values.domain, target, health_check }, rowOf: rows.map((row) => row.index) };
}

/**
 * The form field that holds a body path (the server's `errors[].path`, or a zod issue's path):
 * 'domain', 'target.upstreams.1' -> 'upstreams.{row}.address', 'target.upstreams' -> the list,
 * 'health_check.path'... Null for a path no field shows ('target', 'target.kind').
 */
export function formPathOf(path: string | readonly PropertyKey[], rowOf: readonly number[] = []): string | null {
  const parts = typeof path === 'string' ? path.split('.') : path.map(String);
  const [head, second, third] = parts;
  if (head === 'domain') return 'domain';
  if (head === 'target') {
    if (second === 'project_id' || second === 'environment_id') return second;
    if (second === 'upstreams') {
      if (third === undefined) return 'upstreams.root';
      const row = rowOf[Number(third)] ?? Number(third);
      return Number.isInteger(row) ? `upstreams.${row}.address` : 'upstreams.root';
    }
    return null;
  }
  if (head === 'health_check') {
    if (second === 'path' || second === 'interval_seconds' || second === 'timeout_seconds') return `health_check.${second}`;
    return null;
  }
  return null;
}

type Issue = { path: readonly PropertyKey[]; message: string };

/** The message a form path shows instead of zod's own (a select left empty, a number that is not whole). */
function friendlier(field: string, message: string, values: RouteFormValues): string {
  if (field === 'project_id' && values.project_id === '') return CHOOSE_PROJECT_MESSAGE;
  if (field === 'environment_id' && values.environment_id === '') return CHOOSE_ENVIRONMENT_MESSAGE;
  if (field === 'health_check.interval_seconds' && !WHOLE_NUMBER.test(values.health_check.interval_seconds)) {
    return WHOLE_SECONDS_MESSAGE;
  }
  if (field === 'health_check.timeout_seconds' && !WHOLE_NUMBER.test(values.health_check.timeout_seconds)) {
    return WHOLE_SECONDS_MESSAGE;
  }
  return message;
}

/** Puts `{ type, message }` at a dotted path of the errors object (first message per field wins). */
function place(errors: Record<string, unknown>, path: string, message: string): void {
  const parts = path.split('.');
  let node: Record<string, unknown> = errors;
  for (const [index, part] of parts.entries()) {
    if (index === parts.length - 1) {
      if (!node[part]) node[part] = { type: 'validate', message };
      return;
    }
    const next = node[part];
    if (typeof next !== 'object' || next === null) {
      // Row errors sit in an array, as react-hook-form keeps a field array's errors.
      const created = (/^\d+$/.test(parts[index + 1] ?? '') ? [] : {}) as Record<string, unknown>;
      node[part] = created;
      node = created;
    } else {
      node = next as Record<string, unknown>;
    }
  }
}

export function toFieldErrors(issues: readonly Issue[], values: RouteFormValues, rowOf: readonly number[]) {
  const errors: Record<string, unknown> = {};
  for (const issue of issues) {
    const field = formPathOf(issue.path, rowOf);
    if (field) place(errors, field, friendlier(field, issue.message, values));
  }
  return errors as FieldErrors<RouteFormValues>;
}

/** Checks the form with the contract's request schema (the server's own rules and messages). */
export const routeResolver: Resolver<RouteFormValues, unknown, LbRouteRequest> = async (
  values,
): Promise<ResolverResult<RouteFormValues, LbRouteRequest>> => {
  const { body, rowOf } = toRequestInput(values);
  const result = lbRouteRequestSchema.safeParse(body);
  if (result.success) return { values: result.data, errors: {} };
  const errors = toFieldErrors(result.error.issues, values, rowOf);
  // An issue no field shows still blocks the submit.
  if (Object.keys(errors).length === 0) {
    const message = result.error.issues[0]?.message ?? 'Invalid route';
    return { values: {}, errors: { root: { type: 'validate', message } } as FieldErrors<RouteFormValues> };
  }
  return { values: {}, errors };
};

/** 'GET /health every 5 s' (what the edge asks each upstream), or null when checks are off. */
export function healthCheckSummary(check: LbHealthCheck): string | null {
  if (!check.enabled) return null;
  return `GET ${check.path} every ${check.interval_seconds} s`;
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** A short relative time down to seconds ('12 seconds ago', '3 minutes ago'), for health changes. */
export function relativeSeconds(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const time = new Date(iso).getTime();
  if (Number.isNaN(time)) return 'never';
  const seconds = Math.round((time - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 5) return 'just now';
  if (abs < 60) return relative.format(seconds, 'second');
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86400) return relative.format(Math.round(seconds / 3600), 'hour');
  return relative.format(Math.round(seconds / 86400), 'day');
}
