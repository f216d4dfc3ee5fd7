import {
  createGitlabOauthProviderRequestSchema,
  createPatProviderRequestSchema,
  DEFAULT_BASE_URL,
  type GitAuthMethod,
  type GitProviderType,
  gitBaseUrlSchema,
  updateGitTokenRequestSchema,
} from '@launchbay/contract';
import { z } from 'zod';

export { ADD_GIT_PROVIDER_PATH, GIT_SOURCES_PATH } from '@/lib/git-queries';
export const gitProviderPath = (id: number) => `/git-providers/${id}`;
export const projectPath = (slug: string) => `/projects/${encodeURIComponent(slug)}`;

/** Where GitLab sends the browser back after an OAuth sign-in (the application's redirect URI). */
export const OAUTH_CALLBACK_PATH = '/api/git-providers/gitlab/oauth/callback';
export const oauthCallbackUrl = (origin: string) => `${origin}${OAUTH_CALLBACK_PATH}`;

export const AUTH_METHOD_LABEL: Record<GitAuthMethod, string> = {
  pat: 'Personal access token',
  oauth: 'OAuth application',
};

/** The scopes the platform needs of a token (the server checks them when the provider is added). */
export const REQUIRED_SCOPES: Record<GitProviderType, string[]> = {
  github: ['repo', 'admin:repo_hook'],
  gitlab: ['api'],
};

/** Where the host makes a token with the right scopes, for the token field's help. */
export function newTokenUrl(type: GitProviderType, baseUrl: string): string {
  const base = baseUrl.trim().replace(/\/+$/, '') || DEFAULT_BASE_URL[type];
  return type === 'github'
    ? `${base}/settings/tokens/new?scopes=repo,admin:repo_hook&description=Launchbay`
    : `${base}/-/user_settings/personal_access_tokens?name=Launchbay&scopes=api`;
}

/** Where GitLab registers an OAuth application. */
export function newApplicationUrl(baseUrl: string): string {
  const base = baseUrl.trim().replace(/\/+$/, '') || DEFAULT_BASE_URL.gitlab;
  return `${base}/-/user_settings/applications`;
}

/** Only http(s) addresses become links (a provider's base URL comes from a user). */
export function safeHref(url: string): string | undefined {
  return /^https?:\/\//i.test(url) ? url : undefined;
}

/** An empty Base URL means the host's default (github.com or gitlab.com): it is not sent. */
const optionalBaseUrl = z
  .string()
  .transform((value): string | undefined => (value.trim() === '' ? undefined : value))
  .pipe(gitBaseUrlSchema.optional());

/** The personal-access-token form: the contract's fields and messages, Base URL optional. */
export const patFormSchema = z.object({
  name: createPatProviderRequestSchema.shape.name,
  base_url: optionalBaseUrl,
  token: createPatProviderRequestSchema.shape.token,
});
export type PatFormInput = z.input<typeof patFormSchema>;
export type PatFormOutput = z.output<typeof patFormSchema>;
export const EMPTY_PAT_FORM: PatFormInput = { name: '', base_url: '', token: '' };
export const PAT_FIELDS = ['name', 'base_url', 'token'] as const;

/** The GitLab OAuth application form. */
export const oauthFormSchema = z.object({
  name: createGitlabOauthProviderRequestSchema.shape.name,
  base_url: optionalBaseUrl,
  client_id: createGitlabOauthProviderRequestSchema.shape.client_id,
  client_secret: createGitlabOauthProviderRequestSchema.shape.client_secret,
});
export type OauthFormInput = z.input<typeof oauthFormSchema>;
export type OauthFormOutput = z.output<typeof oauthFormSchema>;
export const EMPTY_OAUTH_FORM: OauthFormInput = { name: '', base_url: '', client_id: '', client_secret: '' };
export const OAUTH_FIELDS = ['name', 'base_url', 'client_id', 'client_secret'] as const;

export const updateTokenFormSchema = updateGitTokenRequestSchema;
export type UpdateTokenFormInput = z.input<typeof updateTokenFormSchema>;

/** The form field a server error's path names (`token`, `base_url`, ...), if it is one of `fields`. */
export function fieldOf<F extends string>(path: string, fields: readonly F[]): F | undefined {
  const first = path.split('.')[0];
  return fields.find((field) => field === first);
}

export const PROVIDER_ID_PATTERN = /^[1-9]\d{0,9}$/;

export function parseProviderId(param: string | undefined): number | null {
  return param && PROVIDER_ID_PATTERN.test(param) ? Number(param) : null;
}
