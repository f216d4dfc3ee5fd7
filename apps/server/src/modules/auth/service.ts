/**
 * What other modules and the HTTP layer may use of the auth module: passwords, sessions, the
 * principal resolver and two-factor setup. Everything else in this folder is its own business.
 */
export { confirmMfa, disableMfa, setupMfa } from './mfa';
export { hashPassword, verifyPassword } from './passwords';
export { createPrincipalResolver } from './principals';
export { createSession, MFA_COOKIE, revokeSession, revokeUserSessions, SESSION_COOKIE } from './sessions';
