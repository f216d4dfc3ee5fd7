import { AlertTriangle, ArchiveRestore, Bell, Globe, HeartPulse, type LucideIcon, Plug, Split } from 'lucide-react';
import { Tabs } from 'radix-ui';
import { useNavigate, useParams } from 'react-router';
import NotFoundPage from '@/components/layout/not-found-page';
import { EmptyState, Page } from '@/components/layout/page';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Label } from '@/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail } from '@/lib/api';
import { cn } from '@/lib/utils';
import { usePreferences } from './api';
import { BackupsTab, DomainsTab, NotificationsTab, ProjectHealthTab, RoutesTab } from './preferences-tabs';
import { useCanManageAlerts } from './provider-actions';
import { ProvidersTab } from './providers-tab';
import { RecentNotifications } from './recent-notifications';

/** Spec section 2: /monitoring/{section}. */
const SECTIONS = [
  { id: 'project', title: 'Project Health', icon: HeartPulse },
  { id: 'domains', title: 'Domains', icon: Globe },
  { id: 'backups', title: 'Backups', icon: ArchiveRestore },
  { id: 'routes', title: 'Routes', icon: Split },
  { id: 'notifications', title: 'Notifications', icon: Bell },
  { id: 'providers', title: 'Providers', icon: Plug },
] as const satisfies readonly { id: string; title: string; icon: LucideIcon }[];

type SectionId = (typeof SECTIONS)[number]['id'];

function isSection(value: string): value is SectionId {
  return SECTIONS.some((section) => section.id === value);
}

function PreferencesSkeleton() {
  return (
    <Card className="gap-0 py-0" aria-busy="true" aria-label="Loading preferences">
      <div className="grid gap-2 border-b p-6">
        <Skeleton className="h-5 w-48" />
        <Skeleton className="h-4 w-72 max-w-full" />
      </div>
      {[0, 1, 2].map((key) => (
        <div key={key} className="flex items-center justify-between gap-4 border-b px-6 py-5 last:border-0">
          <div className="grid gap-2">
            <Skeleton className="h-4 w-40" />
            <Skeleton className="h-3 w-64 max-w-full" />
          </div>
          <Skeleton className="h-5 w-8 rounded-full" />
        </div>
      ))}
    </Card>
  );
}

/** The five preferences tabs share one GET; each edits its own part. */
function PreferencesSection({ section }: { section: Exclude<SectionId, 'providers'> }) {
  const { data: preferences, isPending, isError, error, refetch, isFetching } = usePreferences();
  const canManage = useCanManageAlerts();
  if (isPending) return <PreferencesSkeleton />;
  if (isError) {
    return (
      <EmptyState
        icon={<AlertTriangle />}
        title="Failed to load preferences"
        description={errorDetail(error)}
        action={
          <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
            Retry
          </Button>
        }
      />
    );
  }
  const props = { preferences, readOnly: !canManage };
  switch (section) {
    case 'project':
      return <ProjectHealthTab {...props} />;
    case 'domains':
      return <DomainsTab {...props} />;
    case 'backups':
      return <BackupsTab {...props} />;
    case 'routes':
      return <RoutesTab {...props} />;
    case 'notifications':
      return (
        <div className="grid gap-6">
          <NotificationsTab {...props} />
          <RecentNotifications />
        </div>
      );
  }
}

export default function MonitoringPage() {
  const { section = '' } = useParams();
  const navigate = useNavigate();
  if (!isSection(section)) return <NotFoundPage />;
  const go = (next: string) => navigate(`/monitoring/${next}`);

  return (
    <Page
      title="Monitoring & Alerts"
      documentTitle="Monitoring & Alerts"
      description="Choose which events raise alerts, and where they are delivered."
    >
      <Tabs.Root value={section} onValueChange={go} activationMode="manual" className="grid min-w-0 gap-6">
        {/* Spec section 2: a select list on small screens (< 768px), tabs above. */}
        <div className="md:hidden">
          <Label htmlFor="monitoring-section" className="sr-only">
            Section
          </Label>
          <Select value={section} onValueChange={go}>
            <SelectTrigger id="monitoring-section" aria-label="Section">
              <SelectValue />
            </SelectTrigger>
            <SelectContent>
              {SECTIONS.map(({ id, title, icon: Icon }) => (
                <SelectItem key={id} value={id}>
                  <span className="flex items-center gap-2">
                    <Icon className="size-4 text-muted-foreground" />
                    {title}
                  </span>
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
        </div>
        <Tabs.List aria-label="Monitoring sections" className="-mt-2 hidden min-w-0 gap-1 overflow-x-auto border-b md:flex">
          {SECTIONS.map(({ id, title, icon: Icon }) => (
            <Tabs.Trigger
              key={id}
              value={id}
              className={cn(
                '-mb-px inline-flex h-10 shrink-0 items-center gap-2 whitespace-nowrap border-b-2 px-3 font-medium text-sm outline-none transition-colors focus-visible:ring-2 focus-visible:ring-ring/50',
                id === section
                  ? 'border-foreground text-foreground'
                  : 'border-transparent text-muted-foreground hover:border-border hover:text-foreground',
              )}
            >
              <Icon className="size-4" />
              {title}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        <Tabs.Content value={section} className="min-w-0 outline-none">
          {section === 'providers' ? <ProvidersTab /> : <PreferencesSection key={section} section={section} />}
        </Tabs.Content>
      </Tabs.Root>
    </Page>
  );
}
