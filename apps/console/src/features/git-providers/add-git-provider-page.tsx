import type { GitAuthMethod, GitProviderType } from '@launchbay/contract';
import { AppWindow, Check, KeyRound, ShieldAlert, TriangleAlert } from 'lucide-react';
import { type ReactNode, useId, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { GIT_PROVIDER_LABEL, GitProviderIcon } from '@/components/git/git-provider-icon';
import { Page } from '@/components/layout/page';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { useIsAdmin } from '@/lib/roles';
import { toast } from '@/lib/toast';
import { cn } from '@/lib/utils';
import { OauthProviderForm, PatProviderForm } from './add-provider-forms';
import { useCreateGitlabOauthProvider, useCreatePatProvider } from './api';
import { gitProviderPath, type OauthFormOutput, oauthCallbackUrl, type PatFormOutput } from './model';
import { BackToGitProviders } from './provider-parts';

function OptionCard<T extends string>({
  name,
  value,
  checked,
  onChange,
  disabled,
  icon,
  title,
  description,
}: {
  name: string;
  value: T;
  checked: boolean;
  onChange: (value: T) => void;
  disabled?: boolean;
  icon: ReactNode;
  title: string;
  description: string;
}) {
  const id = useId();
  return (
    <label
      htmlFor={id}
      className={cn(
        'relative flex cursor-pointer items-start gap-3 rounded-xl border bg-card p-4 shadow-xs outline-none transition-colors',
        'has-[:focus-visible]:border-ring has-[:focus-visible]:ring-[3px] has-[:focus-visible]:ring-ring/50',
        checked ? 'border-primary ring-1 ring-primary' : 'hover:bg-accent/40',
        disabled && 'cursor-not-allowed border-dashed opacity-60 hover:bg-card',
      )}
    >
      <input
        id={id}
        type="radio"
        className="sr-only"
        name={name}
        value={value}
        checked={checked}
        disabled={disabled}
        onChange={() => onChange(value)}
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-description`}
      />
      {icon}
      <span className="grid min-w-0 flex-1 gap-1">
        <span id={`${id}-title`} className="font-semibold">
          {title}
        </span>
        <span id={`${id}-description`} className="text-muted-foreground text-sm">
          {description}
        </span>
      </span>
      <span
        aria-hidden
        className={cn(
          'flex size-5 shrink-0 items-center justify-center rounded-full border',
          checked && 'border-primary bg-primary text-primary-foreground',
        )}
      >
        {checked ? <Check className="size-3" /> : null}
      </span>
    </label>
  );
}

function MethodIcon({ children }: { children: ReactNode }) {
  return (
    <span
      aria-hidden
      className="flex size-10 shrink-0 items-center justify-center rounded-lg border bg-muted/50 text-foreground [&_svg]:size-5"
    >
      {children}
    </span>
  );
}

/** The reason the OAuth callback sent back (`?error=`), e.g. a denied authorisation. */
function OauthError({ message }: { message: string }) {
  return (
    <div
      role="alert"
      className="flex items-start gap-3 rounded-lg border border-destructive/30 bg-destructive/5 p-4 text-destructive text-sm"
    >
      <TriangleAlert className="mt-0.5 size-4 shrink-0" />
      <div className="grid min-w-0 gap-1">
        <p className="font-medium">GitLab authorisation failed</p>
        <p className="break-words text-foreground/80">{message}</p>
      </div>
    </div>
  );
}

function AdminOnly() {
  return (
    <div role="note" className="flex items-start gap-3 rounded-lg border bg-muted/50 p-4 text-sm">
      <ShieldAlert className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
      <div>
        <p className="font-medium">Admins only</p>
        <p className="text-muted-foreground">
          Adding a git provider stores a credential for the whole platform, so it needs the admin role. Ask an administrator of
          this platform.
        </p>
      </div>
    </div>
  );
}

export default function AddGitProviderPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const oauthError = params.get('error');
  const isAdmin = useIsAdmin();
  const [type, setType] = useState<GitProviderType>('github');
  const [method, setMethod] = useState<GitAuthMethod>('pat');
  const createPat = useCreatePatProvider();
  const createOauth = useCreateGitlabOauthProvider();
  const callbackUrl = oauthCallbackUrl(window.location.origin);

  const chooseType = (next: GitProviderType) => {
    setType(next);
    // OAuth applications are GitLab's only.
    if (next === 'github') setMethod('pat');
  };

  const addByToken = async (body: PatFormOutput) => {
    const provider = await createPat.mutateAsync({ type, body });
    toast.success('Git provider added', {
      description: provider.account_login
        ? `${provider.name} is connected as @${provider.account_login}.`
        : `${provider.name} is connected.`,
    });
    navigate(gitProviderPath(provider.id));
  };

  const addByOauth = async (body: OauthFormOutput) => {
    const started = await createOauth.mutateAsync(body);
    window.location.assign(started.authorize_url);
  };

  return (
    <Page
      title="Add Git Provider"
      documentTitle="Add Git Provider"
      description="Connect a GitHub or GitLab account so its repositories can be deployed."
      className="max-w-3xl"
      back={<BackToGitProviders />}
    >
      {oauthError ? <OauthError message={oauthError} /> : null}
      {!isAdmin ? (
        <AdminOnly />
      ) : (
        <>
          <fieldset className="grid gap-3">
            <legend className="mb-3 font-medium text-sm">Host</legend>
            <div className="grid gap-3 sm:grid-cols-2">
              <OptionCard
                name="git-provider-type"
                value="github"
                checked={type === 'github'}
                onChange={chooseType}
                icon={<GitProviderIcon type="github" />}
                title="GitHub"
                description="github.com or GitHub Enterprise Server."
              />
              <OptionCard
                name="git-provider-type"
                value="gitlab"
                checked={type === 'gitlab'}
                onChange={chooseType}
                icon={<GitProviderIcon type="gitlab" />}
                title="GitLab"
                description="gitlab.com or a self-hosted GitLab."
              />
            </div>
          </fieldset>
          <fieldset className="grid gap-3">
            <legend className="mb-3 font-medium text-sm">Sign in with</legend>
            <div className="grid gap-3 sm:grid-cols-2">
              <OptionCard
                name="git-provider-method"
                value="pat"
                checked={method === 'pat'}
                onChange={setMethod}
                icon={
                  <MethodIcon>
                    <KeyRound />
                  </MethodIcon>
                }
                title="Personal access token"
                description="A token of the account Launchbay acts as."
              />
              <OptionCard
                name="git-provider-method"
                value="oauth"
                checked={method === 'oauth'}
                onChange={setMethod}
                disabled={type !== 'gitlab'}
                icon={
                  <MethodIcon>
                    <AppWindow />
                  </MethodIcon>
                }
                title="OAuth application"
                description={
                  type === 'gitlab'
                    ? 'Authorise Launchbay in GitLab through an application you register.'
                    : 'GitLab only: GitHub connects with a token.'
                }
              />
            </div>
          </fieldset>
          <Card>
            <CardHeader>
              <CardTitle>
                {GIT_PROVIDER_LABEL[type]} · {method === 'pat' ? 'Personal access token' : 'OAuth application'}
              </CardTitle>
              <CardDescription>
                {method === 'pat'
                  ? `Launchbay checks the token with ${GIT_PROVIDER_LABEL[type]} at once, then reads the account's repositories.`
                  : 'Launchbay sends you to GitLab to authorise it, then reads the repositories of the account you sign in with.'}
              </CardDescription>
            </CardHeader>
            <CardContent>
              {method === 'pat' ? (
                <PatProviderForm key={type} type={type} onSubmit={addByToken} />
              ) : (
                <OauthProviderForm callbackUrl={callbackUrl} onSubmit={addByOauth} />
              )}
            </CardContent>
          </Card>
        </>
      )}
    </Page>
  );
}
