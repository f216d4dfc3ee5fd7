import type { Permission, RoleType } from '@launchbay/contract';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';

/**
 * Who may call a route. 'public' needs nothing; the others need a signed-in session (or an API
 * key) whose role is at least that level. Default: 'reader' for reads, 'user' for mutations.
 * 'mfa_pending' accepts the half-signed-in state between password and second factor.
 */
export type Access = 'public' | 'reader' | 'user' | 'admin';

export type Principal = {
  userId: number;
  sessionId: number;
  username: string;
  email: string;
  avatarUrl: string | null;
  roles: RoleType[];
  mfaEnabled: boolean;
  /** Set when the call is made with an API key rather than a session. */
  apiKey?: { id: number; name: string; permissions: Permission[] };
};

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

export const ROLE_LEVEL: Record<RoleType, number> = { reader: 1, user: 2, admin: 3 };

export function roleLevel(roles: readonly RoleType[]): number {
  return roles.reduce((max, role) => Math.max(max, ROLE_LEVEL[role]), 0);
}

/** A route option that takes one hook or a list of them, as a list (to add a route-level hook to). */
export const hookList = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];
