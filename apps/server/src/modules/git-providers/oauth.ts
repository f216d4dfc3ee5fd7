/**
 * GitLab by OAuth: the admin registers an application on GitLab (redirect URI: this platform's
 * callback) and gives its id and secret; the browser is sent to GitLab to authorise, GitLab sends
 * it back with a code, and the code becomes an access token (refreshed before it expires).
 */
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { record, str } from '../../engine/git-hosts';
import { badRequest, HttpError } from '../../lib/errors';
import { outboundFetch } from '../../lib/outbound';
import { getSettings } from '../settings/service';
import { gitProviders } from './schema';

type GitProviderRow = typeof gitProviders.$inferSelect;

export const OAUTH_CALLBACK_PATH = '/api/git-providers/gitlab/oauth/callback';

export function oauthCallbackUrl(origin: string): string {
  return `${origin}${OAUTH_CALLBACK_PATH}`;
}

export function authorizeUrl(provider: GitProviderRow, callbackUrl: string): string {
  const url = new URL(`${provider.baseUrl}/oauth/authorize`);
  url.searchParams.set('client_id', provider.oauthClientId ?? '');
  url.searchParams.set('redirect_uri', callbackUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('state', provider.oauthState ?? '');
  url.searchParams.set('scope', 'api');
  return url.toString();
}

export type TokenAnswer = { accessToken: string; refreshToken: string | null; expiresAt: Date | null };

export async function tokenRequest(
  ctx: AppContext,
  provider: GitProviderRow,
  grant: Record<string, string>,
): Promise<TokenAnswer> {
  const settings = await getSettings(ctx);
  const policy = { allowPrivateNetworks: provider.savedByAdmin || settings.allow_private_network_targets };
  const host = new URL(provider.baseUrl).host;
  let response: Response;
  try {
    response = await outboundFetch(
      `${provider.baseUrl}/oauth/token`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          client_id: provider.oauthClientId ?? '',
          client_secret: provider.oauthClientSecretSealed ? ctx.box.open(provider.oauthClientSecretSealed) : '',
          ...grant,
        }).toString(),
        signal: AbortSignal.timeout(10_000),
      },
      policy,
    );
  } catch {
    throw new HttpError(502, `Cannot connect to ${host} to finish the OAuth sign-in`);
  }
  const body = record(await response.json().catch(() => null));
  const accessToken = str(body.access_token);
  if (!response.ok || !accessToken) {
    const reason = str(body.error_description) ?? str(body.error) ?? `HTTP ${response.status}`;
    throw badRequest(`GitLab refused the OAuth sign-in: ${reason}`);
  }
  const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : null;
  return {
    accessToken,
    refreshToken: str(body.refresh_token),
    expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
  };
}

/** A fresh access token from the refresh token (GitLab's tokens last two hours). */
export async function refreshGitlabToken(ctx: AppContext, provider: GitProviderRow): Promise<string> {
  const answer = await tokenRequest(ctx, provider, {
    grant_type: 'refresh_token',
    refresh_token: ctx.box.open(provider.refreshTokenSealed ?? ''),
  });
  await ctx.db
    .update(gitProviders)
    .set({
      tokenSealed: ctx.box.seal(answer.accessToken),
      refreshTokenSealed: answer.refreshToken ? ctx.box.seal(answer.refreshToken) : provider.refreshTokenSealed,
      tokenExpiresAt: answer.expiresAt,
      updatedAt: new Date(),
    })
    .where(eq(gitProviders.id, provider.id));
  return answer.accessToken;
}
