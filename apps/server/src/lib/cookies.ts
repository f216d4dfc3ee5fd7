import { parseCookie, type SetCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Cookies, read only where a route needs one: a plugin that parses every request's Cookie header
 * and runs an onSend hook on every answer (@fastify/cookie) cost each API call a hook and two
 * allocations, while two routes and the credential lookup read one cookie.
 */

export type CookieOptions = Omit<SetCookie, 'name' | 'value'>;

/** The value of the request's cookie `name`, if it sends one. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  return header ? parseCookie(header)[name] : undefined;
}

/** Adds a Set-Cookie header (Fastify keeps each one: several cookies make several headers). */
export function setCookie(reply: FastifyReply, name: string, value: string, options: CookieOptions): void {
  reply.header('set-cookie', stringifySetCookie({ path: '/', sameSite: 'lax', ...options, name, value }));
}

/** Tells the browser to drop the cookie `name` set with the same path. */
export function clearCookie(reply: FastifyReply, name: string, options: CookieOptions = {}): void {
  setCookie(reply, name, '', { ...options, expires: new Date(0), maxAge: 0 });
}
