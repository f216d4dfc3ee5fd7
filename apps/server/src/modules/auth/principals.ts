import { API_KEY_PREFIX } from '@launchbay/contract';
import type { CredentialCheck, PrincipalResolver } from '../../context';
import type { Db } from '../../db/client';
import { afterCommit } from '../../db/request-transaction';
import { TtlCache } from '../../lib/cache';
import { sha256 } from '../../lib/crypto';
import type { Principal } from '../../lib/http';
import { loadApiKey, recordApiKeyUse } from '../api-keys/service';
import { loadSession, SESSION_TOKEN_PREFIX, type SessionKind, touchSession } from './sessions';

/**
 * The one place a credential becomes a principal, for sessions and API keys alike, with one
 * cache per platform. Resolved credentials are cached briefly so the hot path (every API call)
 * costs no query; changes made on this node drop the entries at once (and again at commit), and
 * another node sharing the database sees them within CACHE_TTL_MS.
 */
const CACHE_TTL_MS = 5_000;
const CACHE_MAX_ENTRIES = 10_000;

type Entry =
  | { kind: SessionKind; principal: Principal; expiresAt: number }
  | { kind: 'api_key'; principal: Principal; isActive: boolean; expiresAt: number | null }
  /** Nothing usable behind the credential; cached too, so a stream of bad tokens costs no queries. */
  | { kind: 'unknown' };

const NO_PRINCIPAL: CredentialCheck = Object.freeze({ principal: null });
const INVALID_KEY: CredentialCheck = Object.freeze({ principal: null, refusal: 'Invalid API key' });
const DEACTIVATED_KEY: CredentialCheck = Object.freeze({ principal: null, refusal: 'This API key is deactivated' });
const EXPIRED_KEY: CredentialCheck = Object.freeze({ principal: null, refusal: 'This API key has expired' });

const userOf = (entry: Entry) => (entry.kind === 'unknown' ? undefined : entry.principal.userId);

export function createPrincipalResolver(deps: { db: Db }): PrincipalResolver {
  // Keyed by the credential itself: a hit costs no hashing (the cache never leaves this process).
  const cache = new TtlCache<string, Entry>(CACHE_TTL_MS, CACHE_MAX_ENTRIES);

  async function load(credential: string): Promise<Entry> {
    const hash = sha256(credential);
    if (credential.startsWith(API_KEY_PREFIX)) {
      const key = await loadApiKey(deps.db, hash);
      return key ? { kind: 'api_key', ...key } : { kind: 'unknown' };
    }
    const session = await loadSession(deps.db, hash);
    return session ?? { kind: 'unknown' };
  }

  const lookup = async (credential: string) =>
    (await cache.getOrLoad(credential, () => load(credential))) ?? { kind: 'unknown' as const };

  /** Drops matching entries now, and again once the calling request commits (a concurrent call could re-cache the old rows). */
  function forget(matches: (entry: Entry) => boolean) {
    cache.deleteWhere(matches);
    afterCommit(() => cache.deleteWhere(matches));
  }

  /** What a cached or loaded entry means for a request that presents `credential`, at `now`. */
  function check(credential: string, entry: Entry, client: { readonly ip: string }, now: number): CredentialCheck {
    if (credential.startsWith(API_KEY_PREFIX)) {
      if (entry.kind !== 'api_key') return INVALID_KEY;
      if (!entry.isActive) return DEACTIVATED_KEY;
      if (entry.expiresAt !== null && entry.expiresAt <= now) return EXPIRED_KEY;
      const keyId = entry.principal.apiKey?.id;
      if (keyId !== undefined) recordApiKeyUse(deps.db, keyId, client);
      return { principal: entry.principal };
    }
    if (entry.kind !== 'session' || entry.expiresAt < now) return NO_PRINCIPAL;
    touchSession(deps.db, entry.principal.sessionId, now);
    return { principal: entry.principal };
  }

  return {
    // A cached credential (nearly every API call) is answered synchronously: no promise, no microtask.
    resolve(credential, client) {
      if (credential.startsWith(API_KEY_PREFIX)) {
        if (credential.length > 120) return INVALID_KEY;
      } else if (!credential.startsWith(SESSION_TOKEN_PREFIX) || credential.length > 100) {
        return NO_PRINCIPAL;
      }
      const now = Date.now();
      const cached = cache.get(credential, now);
      if (cached) return check(credential, cached, client, now);
      return lookup(credential).then((entry) => check(credential, entry, client, Date.now()));
    },

    async resolvePendingMfa(token) {
      if (!token.startsWith(SESSION_TOKEN_PREFIX) || token.length > 100) return null;
      const entry = await lookup(token);
      return entry.kind === 'mfa_pending' && entry.expiresAt >= Date.now() ? entry.principal : null;
    },

    forgetUser(userId) {
      // 'unknown' entries hold no user: one may be a disabled user's credential about to work again.
      forget((entry) => entry.kind === 'unknown' || userOf(entry) === userId);
    },

    forgetSession(sessionId) {
      forget((entry) => (entry.kind === 'session' || entry.kind === 'mfa_pending') && entry.principal.sessionId === sessionId);
    },

    forgetApiKey(keyId) {
      forget((entry) => entry.kind === 'unknown' || (entry.kind === 'api_key' && entry.principal.apiKey?.id === keyId));
    },
  };
}
