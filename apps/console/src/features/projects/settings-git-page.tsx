import type { ProjectDetail } from '@launchbay/contract';
import { ArrowUpRight, GitBranch, GitPullRequest, Inbox, Info, Timer, TriangleAlert, Webhook } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { GIT_PROVIDER_LABEL, GitProviderIcon } from '@/components/git/git-provider-icon';
import { EmptyState } from '@/components/layout/page';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { CopyButton } from '@/components/ui/copy-button';
import { Label } from '@/components/ui/label';
import { Skeleton } from '@/components/ui/skeleton';
import { Switch } from '@/components/ui/switch';
import { errorDetail } from '@/lib/api';
import { useDocumentTitle } from '@/lib/document-title';
import { displayRepository } from '@/lib/project-queries';
import { useCanManage, useIsAdmin } from '@/lib/roles';
import { useSettings } from '@/lib/settings';
import { toast } from '@/lib/toast';
import { useRegisterWebhook, useSetAutomaticDeploy, useSetPreviewsEnabled, useWebhookDeliveries } from './git-api';
import { GitRemoteCard } from './git-remote-card';
import { projectBase, useRouteProject } from './model';
import { previewAddressExample } from './preview-status';
import { DeliveriesList } from './webhook-deliveries';

type ProviderRepository = NonNullable<ProjectDetail['repository']>;

/** The repository's page on its host, from an http(s) clone URL ('https://github.com/acme/site.git' -> 'https://github.com/acme/site'). */
export function repositoryWebUrl(gitUrl: string | null): string | null {
  if (!gitUrl || !/^https?:\/\//.test(gitUrl)) return null;
  try {
    const url = new URL(gitUrl);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\.git$/, '');
  } catch {
    return null;
  }
}

const textLink =
  'rounded-sm font-medium text-foreground underline underline-offset-4 outline-none hover:text-foreground/80 focus-visible:ring-2 focus-visible:ring-ring/50';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid min-w-0 content-start gap-1.5">
      <dt className="text-muted-foreground text-xs">{label}</dt>
      <dd className="min-w-0 text-sm">{children}</dd>
    </div>
  );
}

/** An on/off setting that saves at once: label and description on the left, the switch on the right. */
function SwitchRow({
  id,
  label,
  description,
  checked,
  disabled,
  onCheckedChange,
  children,
}: {
  id: string;
  label: string;
  description: ReactNode;
  checked: boolean;
  disabled: boolean;
  onCheckedChange: (checked: boolean) => void;
  children?: ReactNode;
}) {
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-3 rounded-lg border p-4">
      <div className="flex items-start justify-between gap-4">
        <div className="grid min-w-0 gap-1">
          <Label id={`${id}-label`} htmlFor={id}>
            {label}
          </Label>
          <p id={`${id}-hint`} className="text-muted-foreground text-xs">
            {description}
          </p>
        </div>
        <Switch
          id={id}
          checked={checked}
          disabled={disabled}
          onCheckedChange={onCheckedChange}
          aria-labelledby={`${id}-label`}
          aria-describedby={`${id}-hint`}
        />
      </div>
      {children}
    </div>
  );
}

function Notice({ tone = 'muted', icon, children }: { tone?: 'muted' | 'warning'; icon: ReactNode; children: ReactNode }) {
  return (
    <div
      role="note"
      className={
        tone === 'warning'
          ? 'flex items-start gap-3 rounded-lg border border-warning/40 bg-warning/10 px-3 py-2.5 text-sm [&>svg]:mt-0.5 [&>svg]:size-4 [&>svg]:shrink-0 [&>svg]:text-amber-600 dark:[&>svg]:text-warning'
          : 'flex items-start gap-3 rounded-lg border bg-muted/40 px-3 py-2.5 text-sm [&>svg]:mt-0.5 [&>svg]:size-4 [&>svg]:shrink-0 [&>svg]:text-muted-foreground'
      }
    >
      {icon}
      <div className="grid min-w-0 gap-1">{children}</div>
    </div>
  );
}

function RepositoryLink({ gitUrl, name }: { gitUrl: string | null; name: string }) {
  const webUrl = repositoryWebUrl(gitUrl);
  if (!webUrl) return <span className="block truncate font-medium">{name}</span>;
  return (
    <a
      href={webUrl}
      target="_blank"
      rel="noreferrer"
      className="inline-flex max-w-full items-center gap-1 font-medium underline-offset-4 hover:underline"
    >
      <span className="truncate">{name}</span>
      <ArrowUpRight className="size-3.5 shrink-0 text-muted-foreground" />
    </a>
  );
}

function BranchField({ project }: { project: ProjectDetail }) {
  return (
    <Field label="Production branch">
      <span className="inline-flex items-center gap-1.5 font-mono">
        <GitBranch className="size-3.5 shrink-0 text-muted-foreground" />
        {project.branch}
      </span>
      <span className="mt-1 block text-muted-foreground text-xs">
        Other environments follow their own branches:{' '}
        <Link to={`${projectBase(project.slug)}/settings/environments`} className={textLink}>
          Environments
        </Link>
      </span>
    </Field>
  );
}

function ProviderRepositoryCard({ project, repository }: { project: ProjectDetail; repository: ProviderRepository }) {
  const provider = GIT_PROVIDER_LABEL[repository.provider_type];
  return (
    <Card className="gap-5" role="region" aria-labelledby="git-repository-title">
      <CardHeader>
        <CardTitle id="git-repository-title">Repository</CardTitle>
        <CardDescription>Read with the token of the {provider} provider it comes from.</CardDescription>
      </CardHeader>
      <CardContent className="grid grid-cols-[minmax(0,1fr)] gap-5">
        <div className="flex min-w-0 items-center gap-3">
          <GitProviderIcon type={repository.provider_type} />
          <div className="grid min-w-0 grid-cols-[minmax(0,1fr)] gap-0.5">
            <RepositoryLink gitUrl={project.git_url} name={repository.full_name} />
            <span className="text-muted-foreground text-xs">{provider}</span>
          </div>
        </div>
        <dl className="grid grid-cols-[minmax(0,1fr)] gap-4 sm:grid-cols-2">
          <BranchField project={project} />
          <Field label="Clone URL">
            <span className="block truncate font-mono text-xs" title={project.git_url ?? undefined}>
              {project.git_url ?? '—'}
            </span>
          </Field>
        </dl>
      </CardContent>
    </Card>
  );
}

/** How the host's pushes reach the platform: the registered webhook, or polling (and why). */
function PushSource({
  project,
  repository,
  webhookUrl,
  registered,
  loading,
}: {
  project: ProjectDetail;
  repository: ProviderRepository;
  webhookUrl: string | null;
  registered: boolean;
  loading: boolean;
}) {
  const settings = useSettings();
  const isAdmin = useIsAdmin();
  const provider = GIT_PROVIDER_LABEL[repository.provider_type];
  if (loading) return <Skeleton className="h-16 w-full" />;
  if (registered) {
    return (
      <div className="grid grid-cols-[minmax(0,1fr)] gap-2" data-testid="push-source">
        <p className="flex items-center gap-2 font-medium text-sm">
          <Webhook className="size-4 text-muted-foreground" />
          Webhook registered on {provider}
          <Badge variant="success">Active</Badge>
        </p>
        <p className="text-muted-foreground text-xs">
          {provider} sends each push and pull request here, signed with this project's secret; unsigned deliveries are rejected.
        </p>
        {webhookUrl ? (
          <div className="flex min-w-0 items-center gap-2">
            <code className="min-w-0 flex-1 truncate rounded-md border bg-muted/50 px-2 py-1.5 font-mono text-xs">
              {webhookUrl}
            </code>
            <CopyButton value={webhookUrl} iconOnly label="Copy the webhook URL" />
          </div>
        ) : null}
      </div>
    );
  }
  const interval = settings.data?.git_poll_interval_seconds;
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-2" data-testid="push-source">
      <p className="flex items-center gap-2 font-medium text-sm">
        <Timer className="size-4 text-muted-foreground" />
        {interval === undefined ? 'Polled' : `Polled every ${interval} seconds`}
      </p>
      <p className="text-muted-foreground text-xs">
        {webhookUrl
          ? `${provider} did not accept a webhook for this repository (its token may not manage the repository's hooks)`
          : `No external URL was set when the project was created, so ${provider} cannot reach Launchbay`}
        : Launchbay reads the branch heads {interval === undefined ? 'on an interval' : `every ${interval} seconds`} instead and
        deploys a new head once. {project.automatic_deploy ? '' : 'Polling waits while automatic deploys are off. '}
        Pull request previews need the webhook.
      </p>
      {webhookUrl ? null : (
        <p className="text-muted-foreground text-xs">
          With an external URL set in{' '}
          <Link to="/settings" className={textLink}>
            Settings
          </Link>
          {isAdmin ? '' : ' (setting it needs the admin role)'}, register the webhook below.
        </p>
      )}
      <RegisterWebhookButton projectId={project.id} />
    </div>
  );
}

/** Asks the host for the webhook again: after the external URL was set, or once the token may manage hooks. */
function RegisterWebhookButton({ projectId }: { projectId: number }) {
  const canManage = useCanManage();
  const register = useRegisterWebhook(projectId);
  if (!canManage) return null;
  const run = async () => {
    try {
      const result = await register.mutateAsync();
      if (result.webhook_registered) toast.success('Webhook registered', { description: result.webhook_url ?? undefined });
      else toast.error('Webhook not registered', { description: result.detail ?? undefined });
    } catch (error) {
      toast.error('Failed to register the webhook', { description: errorDetail(error) });
    }
  };
  return (
    <div>
      <Button variant="outline" size="sm" onClick={() => void run()} disabled={register.isPending}>
        <Webhook />
        {register.isPending ? 'Registering...' : 'Register webhook'}
      </Button>
    </div>
  );
}

function DeployOnPushCard({ project, repository }: { project: ProjectDetail; repository: ProviderRepository }) {
  const canManage = useCanManage();
  const deliveries = useWebhookDeliveries(project.id);
  const setAutomatic = useSetAutomaticDeploy();
  const toggle = async (enabled: boolean) => {
    try {
      await setAutomatic.mutateAsync({ projectId: project.id, enabled });
      toast.success(enabled ? 'Automatic deploys on' : 'Automatic deploys off', {
        description: enabled
          ? `A push to ${project.branch} deploys it.`
          : 'Pushes are recorded but deploy nothing; deploy by hand.',
      });
    } catch (error) {
      toast.error('Failed to update automatic deploys', { description: errorDetail(error) });
    }
  };
  return (
    <Card className="gap-5" role="region" aria-labelledby="git-deploy-title">
      <CardHeader>
        <CardTitle id="git-deploy-title">Deploy on push</CardTitle>
        <CardDescription>A push to an environment's branch deploys that exact commit.</CardDescription>
      </CardHeader>
      <CardContent className="grid grid-cols-[minmax(0,1fr)] gap-4">
        <SwitchRow
          id="git-automatic-deploy"
          label="Automatic deploys"
          description={`Deploy each push to ${project.branch} (production) and to the branches of the other environments. Off: deliveries are still recorded, but only a Redeploy deploys.`}
          checked={project.automatic_deploy}
          disabled={!canManage || setAutomatic.isPending}
          onCheckedChange={(checked) => void toggle(checked)}
        />
        <div className="rounded-lg border p-4">
          <PushSource
            project={project}
            repository={repository}
            webhookUrl={deliveries.data?.webhook_url ?? null}
            registered={deliveries.data?.webhook_registered ?? repository.webhook_registered}
            loading={deliveries.isPending && !deliveries.isError}
          />
        </div>
      </CardContent>
    </Card>
  );
}

function PreviewsSettingsCard({ project }: { project: ProjectDetail }) {
  const canManage = useCanManage();
  const isAdmin = useIsAdmin();
  const settings = useSettings();
  const setPreviews = useSetPreviewsEnabled();
  const example = settings.data ? previewAddressExample(settings.data.preview_address_template, project) : null;
  const platformOff = settings.data ? !settings.data.preview_environments_enabled : false;
  const toggle = async (enabled: boolean) => {
    try {
      await setPreviews.mutateAsync({ projectId: project.id, enabled });
      toast.success(enabled ? 'Pull request previews on' : 'Pull request previews off', {
        description: enabled
          ? platformOff
            ? 'They start once preview environments are on for the platform.'
            : 'Each pull request opened or updated from now on gets its own address.'
          : 'New pull requests get no preview.',
      });
    } catch (error) {
      toast.error('Failed to update pull request previews', { description: errorDetail(error) });
    }
  };
  const envVarsPath = `${projectBase(project.slug)}/settings/environment-variables`;
  return (
    <Card className="gap-5" role="region" aria-labelledby="git-previews-title">
      <CardHeader>
        <CardTitle id="git-previews-title">Pull request previews</CardTitle>
        <CardDescription>Each open pull request deploys to an address of its own; its state goes back to it.</CardDescription>
      </CardHeader>
      <CardContent className="grid grid-cols-[minmax(0,1fr)] gap-4">
        <SwitchRow
          id="git-previews"
          label="Pull request previews"
          description={
            <>
              Deploy the head of each pull request
              {example ? (
                <>
                  {' '}
                  to an address such as{' '}
                  <span className="inline-block max-w-full truncate whitespace-nowrap align-bottom font-mono">
                    {example.replace(/^https?:\/\//, '')}
                  </span>
                </>
              ) : null}
              . Previews get only the{' '}
              <Link to={envVarsPath} className={textLink}>
                environment variables marked for previews
              </Link>
              ; pull requests from forks wait for approval on the overview.
            </>
          }
          checked={project.previews_enabled}
          disabled={!canManage || setPreviews.isPending}
          onCheckedChange={(checked) => void toggle(checked)}
        >
          {platformOff ? (
            <Notice tone="warning" icon={<TriangleAlert />}>
              <p className="font-medium">Preview environments are off for the platform.</p>
              <p className="text-muted-foreground text-xs">
                No pull request gets a preview until an admin turns them on in{' '}
                <Link to="/settings" className={textLink}>
                  Settings
                </Link>
                {isAdmin ? '' : ' (it needs the admin role)'}.
              </p>
            </Notice>
          ) : null}
        </SwitchRow>
      </CardContent>
    </Card>
  );
}

function DeliveriesCard({ project }: { project: ProjectDetail }) {
  const deliveries = useWebhookDeliveries(project.id);
  const list = deliveries.data?.deliveries ?? [];
  const registered = deliveries.data?.webhook_registered ?? project.repository?.webhook_registered ?? false;
  return (
    <Card className="gap-4 overflow-hidden pb-0" role="region" aria-labelledby="git-deliveries-title">
      <CardHeader>
        <CardTitle id="git-deliveries-title">Recent deliveries</CardTitle>
        <CardDescription>What the git host sent (or polling found) and what came of it, newest first.</CardDescription>
      </CardHeader>
      <div className="border-t">
        {deliveries.isPending ? (
          <div className="grid gap-3 p-4">
            {Array.from({ length: 3 }, (_, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: static placeholders
              <Skeleton key={index} className="h-8 w-full" />
            ))}
          </div>
        ) : deliveries.isError ? (
          <div className="flex flex-wrap items-center justify-between gap-3 p-4 text-sm">
            <span className="text-muted-foreground">Could not load the deliveries: {errorDetail(deliveries.error)}</span>
            <Button variant="outline" size="sm" onClick={() => void deliveries.refetch()} disabled={deliveries.isFetching}>
              Retry
            </Button>
          </div>
        ) : list.length === 0 ? (
          <EmptyState
            icon={<Inbox />}
            title="No deliveries yet"
            description={
              registered
                ? `Push to ${project.branch} or open a pull request: what arrives shows here.`
                : `New commits that polling finds on ${project.branch} show here.`
            }
            className="rounded-none border-0 py-10"
          />
        ) : (
          <div className="p-0 max-md:p-4">
            <DeliveriesList slug={project.slug} deliveries={list} />
          </div>
        )}
      </div>
    </Card>
  );
}

/** A project whose source is a plain git URL or the platform's own remote: what starts its deployments. */
function PlainSource({ project }: { project: ProjectDetail }) {
  const repository = displayRepository(project.git_url);
  return (
    <>
      {project.git_url ? (
        <Card className="gap-5" role="region" aria-labelledby="git-repository-title">
          <CardHeader>
            <CardTitle id="git-repository-title">Repository</CardTitle>
            <CardDescription>
              {project.deploy_key_public
                ? 'Read over SSH with the project’s deploy key.'
                : project.has_git_token
                  ? 'Read with the access token saved with the project.'
                  : 'Read without credentials.'}
            </CardDescription>
          </CardHeader>
          <CardContent>
            <dl className="grid grid-cols-[minmax(0,1fr)] gap-4 sm:grid-cols-2">
              <Field label="Repository">
                <RepositoryLink gitUrl={project.git_url} name={repository || project.git_url} />
              </Field>
              <BranchField project={project} />
            </dl>
          </CardContent>
        </Card>
      ) : (
        <GitRemoteCard project={project} />
      )}
      <Card className="gap-4" role="region" aria-labelledby="git-deploy-title">
        <CardHeader>
          <CardTitle id="git-deploy-title">Deploy on push</CardTitle>
          <CardDescription>
            {project.git_url
              ? 'Launchbay is not told about pushes to this repository.'
              : 'Every push to the Launchbay remote deploys.'}
          </CardDescription>
        </CardHeader>
        <CardContent className="grid grid-cols-[minmax(0,1fr)] gap-3">
          <Notice icon={<Info />}>
            {project.git_url ? (
              <p>
                This repository is not from a connected git provider: no webhook reaches Launchbay and its branch is not polled,
                so a push deploys nothing by itself. Deploy with Redeploy on the{' '}
                <Link to={projectBase(project.slug)} className={textLink}>
                  overview
                </Link>
                , the API or the CLI.
              </p>
            ) : (
              <p>
                A git push to this project’s remote deploys the pushed head of every environment that follows the branch (
                <span className="font-mono">{project.branch}</span> for production), whatever the automatic deploy setting.
              </p>
            )}
          </Notice>
          <Notice icon={<GitPullRequest />}>
            <p>
              Automatic deploys from a git host, their delivery log and pull request previews need a repository from a{' '}
              <Link to="/git-sources" className={textLink}>
                connected git provider
              </Link>
              : create a project from it to get them.
            </p>
          </Notice>
        </CardContent>
      </Card>
    </>
  );
}

/** /projects/{slug}/settings/git: the repository, deploy on push (webhook or polling), previews and the last deliveries. */
export default function SettingsGitPage() {
  const { data: project } = useRouteProject();
  const canManage = useCanManage();
  useDocumentTitle(project ? `${project.name} - Git` : 'Git');
  if (!project) return null;
  const repository = project.repository;
  return (
    <section className="grid grid-cols-[minmax(0,1fr)] gap-6" aria-labelledby="git-settings-title">
      <div className="grid gap-1">
        <h2 id="git-settings-title" className="font-semibold text-lg">
          Git
        </h2>
        <p className="text-muted-foreground text-sm">Where the code comes from and what deploys it.</p>
      </div>
      {repository && !canManage ? (
        <p className="text-muted-foreground text-sm" data-testid="git-read-only">
          Your role is read-only: changing these needs the user role.
        </p>
      ) : null}
      {repository ? (
        <>
          <ProviderRepositoryCard project={project} repository={repository} />
          <DeployOnPushCard project={project} repository={repository} />
          <PreviewsSettingsCard project={project} />
          <DeliveriesCard project={project} />
        </>
      ) : (
        <PlainSource project={project} />
      )}
    </section>
  );
}
