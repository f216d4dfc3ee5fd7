import { Activity, FolderGit2, Globe, type LucideIcon, Network, Plus, ShieldCheck, ShieldOff } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Page } from '@/components/layout/page';
import { Badge } from '@/components/ui/badge';
import { buttonVariants } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Skeleton } from '@/components/ui/skeleton';
import { useCurrentUser } from '@/lib/current-user';
import { formatDuration } from '@/lib/format';
import { ACCESS_MODE_LABEL, useAccessInfo } from '@/lib/platform';
import { useProjects } from '@/lib/projects';
import { DEPLOYMENT_SOURCES, ProjectsCard, RecentDeploymentsCard } from './dashboard-projects';
import { useHealth } from './health';

function greeting(date = new Date()): string {
  const hour = date.getHours();
  if (hour < 12) return 'Good morning';
  if (hour < 18) return 'Good afternoon';
  return 'Good evening';
}

function StatCard({
  title,
  icon: Icon,
  loading,
  value,
  footer,
}: {
  title: string;
  icon: LucideIcon;
  loading: boolean;
  value: ReactNode;
  footer: ReactNode;
}) {
  return (
    <Card className="gap-3 py-5">
      <CardHeader className="flex flex-row items-center justify-between px-5">
        <CardTitle className="font-medium text-muted-foreground text-sm">{title}</CardTitle>
        <Icon className="size-4 text-muted-foreground" />
      </CardHeader>
      <CardContent className="space-y-1 px-5">
        {loading ? (
          <>
            <Skeleton className="h-7 w-20" />
            <Skeleton className="h-4 w-32" />
          </>
        ) : (
          <>
            <div className="font-semibold text-2xl tracking-tight">{value}</div>
            <div className="text-muted-foreground text-xs">{footer}</div>
          </>
        )}
      </CardContent>
    </Card>
  );
}

export default function DashboardPage() {
  const { data: user } = useCurrentUser();
  // The most recently deployed first: they hold the newest deployments (RecentDeploymentsCard).
  const projects = useProjects(1, DEPLOYMENT_SOURCES, { sort: 'last_deployment' });
  const health = useHealth();
  const access = useAccessInfo();
  const name = user?.username || 'User';

  return (
    <Page
      title={`${greeting()}, ${name}`}
      documentTitle="Dashboard"
      description="Here is the current state of your Launchbay platform."
      actions={
        <Link to="/projects/new" className={buttonVariants()}>
          <Plus />
          Create Project
        </Link>
      }
    >
      <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
        <StatCard
          title="Projects"
          icon={FolderGit2}
          loading={projects.isPending}
          value={projects.isError ? '—' : (projects.data?.total ?? 0)}
          footer={projects.isError ? 'Could not load projects' : 'Total projects on this platform'}
        />
        <StatCard
          title="Platform health"
          icon={Activity}
          loading={health.isPending}
          value={
            health.isError ? (
              <Badge variant="destructive">Unreachable</Badge>
            ) : health.data?.status === 'ok' ? (
              <Badge variant="success">Healthy</Badge>
            ) : (
              <Badge variant="warning">Degraded</Badge>
            )
          }
          footer={
            health.data
              ? `Up ${formatDuration(health.data.uptime_seconds)} · ${health.data.database} database${
                  health.data.database_ok ? '' : ' (not responding)'
                }`
              : 'Health check failed'
          }
        />
        <StatCard
          title="Version"
          icon={Globe}
          loading={health.isPending}
          value={health.data ? health.data.version : '—'}
          footer="Launchbay server version"
        />
        <StatCard
          title="Access mode"
          icon={Network}
          loading={access.isPending}
          value={access.data ? ACCESS_MODE_LABEL[access.data.access_mode] : '—'}
          footer={
            access.data ? (
              access.data.public_url ? (
                <span className="break-all">{access.data.public_url}</span>
              ) : (
                'No public URL configured'
              )
            ) : (
              'Access info unavailable'
            )
          }
        />
      </div>

      <div className="grid grid-cols-[minmax(0,1fr)] gap-4 lg:grid-cols-3">
        <ProjectsCard
          projects={projects.data?.projects}
          total={projects.data?.total ?? 0}
          isPending={projects.isPending}
          error={projects.error}
        />

        <Card>
          <CardHeader>
            <CardTitle>Your account</CardTitle>
            <CardDescription>{user?.email}</CardDescription>
          </CardHeader>
          <CardContent className="space-y-4 text-sm">
            <div className="flex items-center justify-between gap-2">
              <span className="text-muted-foreground">Roles</span>
              <span className="flex flex-wrap justify-end gap-1">
                {user?.roles.map((role) => (
                  <Badge key={role} variant={role === 'admin' ? 'default' : 'secondary'} className="capitalize">
                    {role}
                  </Badge>
                ))}
              </span>
            </div>
            <div className="flex items-center justify-between gap-2">
              <span className="text-muted-foreground">Two-factor auth</span>
              {user?.mfa_enabled ? (
                <Badge variant="success">
                  <ShieldCheck />
                  Enabled
                </Badge>
              ) : (
                <Badge variant="warning">
                  <ShieldOff />
                  Off
                </Badge>
              )}
            </div>
            <Link to="/account" className={buttonVariants({ variant: 'outline', className: 'w-full' })}>
              Manage account
            </Link>
          </CardContent>
        </Card>
      </div>

      <RecentDeploymentsCard projects={projects.data?.projects} isPending={projects.isPending} />
    </Page>
  );
}
