import type { EdgeDriver, EdgeState } from '@launchbay/edge-protocol';
import type pg from 'pg';
import type { Config } from './config';
import type { Db } from './db/client';
import type { RuntimeDriver } from './engine/runtime/driver';
import type { SecretBox } from './lib/crypto';
import type { Principal } from './lib/http';

/**
 * What every route, service and job is handed: configuration, the database and the shared
 * services of one running platform. This file imports no module, so any module can depend on it.
 */

/** The outcome of checking a credential: who it belongs to, or why it cannot be used (401 detail). */
export type CredentialCheck = { principal: Principal } | { principal: null; refusal?: string };

/**
 * Turns the credential a request carries (a session token or an API key) into a principal, with
 * one cache per platform. Every change to who someone is (roles, status, sessions, keys) calls one
 * of the forget methods, which drop the cached copies now and again when the change commits.
 */
export interface PrincipalResolver {
  /**
   * Synchronous when the credential is cached (the hot path of every API call), a promise when it must be loaded.
   * The client (the request) is asked its address only when an API key's use is recorded (reading it costs a trusted-proxy check).
   */
  resolve(credential: string, client: { readonly ip: string }): CredentialCheck | Promise<CredentialCheck>;
  /** A sign-in between password and second factor (only this resolves a pending-MFA token). */
  resolvePendingMfa(token: string): Promise<Principal | null>;
  forgetUser(userId: number): void;
  forgetSession(sessionId: number): void;
  forgetApiKey(keyId: number): void;
}

export type AppContext = {
  config: Config;
  /** Follows the request transaction of a mutating API call (db/request-transaction.ts). */
  db: Db;
  pool: pg.Pool;
  box: SecretBox;
  principals: PrincipalResolver;
  databaseKind: 'embedded' | 'external';
  /** Runs deployments' processes (the `process` driver by default). */
  runtime: RuntimeDriver;
  edge: {
    /** The port the edge proxy listens on (PROXY_PORT, or the free port it took when that is 0). */
    port(): number;
    /** The port the edge serves HTTPS on; null while it does not (no edge, or its TLS port was taken). */
    tlsPort(): number | null;
    /** The edge process being watched (to ask it which route table version it serves); null while there is none. */
    current(): EdgeState | null;
    /** The driver edges start with (the `edge_driver` setting, applied). */
    driver(): EdgeDriver;
    /** Replaces the running edge by one with this driver; rejects with the reason (the previous driver serves again). */
    setDriver(driver: EdgeDriver): Promise<EdgeState>;
  };
  startedAt: number;
};
