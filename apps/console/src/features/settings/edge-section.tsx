import { type EdgeDriverName, edgeStatusSchema, type PlatformSettings, platformSettingsSchema } from '@launchbay/contract';
import { useQuery } from '@tanstack/react-query';
import { AlertTriangle } from 'lucide-react';
import { useMemo } from 'react';
import { Controller } from 'react-hook-form';
import { z } from 'zod';
import { Badge } from '@/components/ui/badge';
import { FieldError } from '@/components/ui/field-error';
import { api } from '@/lib/api';
import { cn } from '@/lib/utils';
import { SettingsSection, useSectionForm } from './section';

export const edgeStatusQuery = {
  queryKey: ['platform', 'edge'],
  queryFn: () => api('/platform/edge', { response: edgeStatusSchema }),
  staleTime: 10_000,
} as const;

/** How often the status is asked again while no edge serves. */
const NO_EDGE_POLL_MS = 2000;

const edgeSchema = z.object({ edge_driver: platformSettingsSchema.shape.edge_driver });

const DRIVERS: { value: EdgeDriverName; title: string; text: string }[] = [
  {
    value: 'embedded',
    title: 'Embedded',
    text: 'The Launchbay edge itself. Nothing to install; route changes apply instantly and never touch open connections.',
  },
  {
    value: 'nginx',
    title: 'nginx',
    text: 'nginx serves the traffic, configured and reloaded by Launchbay. For the most throughput on busy hosts; each route change is a graceful reload.',
  },
];

/** Who serves apps' traffic: the embedded edge or nginx; switching restarts the edge in place on the same ports. */
export function EdgeSection({ settings, readOnly }: { settings: PlatformSettings; readOnly: boolean }) {
  const values = useMemo(() => ({ edge_driver: settings.edge_driver }), [settings]);
  const section = useSectionForm({
    schema: edgeSchema,
    values,
    current: settings,
    alsoRefresh: [edgeStatusQuery.queryKey],
  });
  // While no edge serves (one restarting, or a switch just done), ask again until one does: the section never keeps saying it is down once it is back.
  const status = useQuery({
    ...edgeStatusQuery,
    refetchInterval: (query) => (query.state.data?.driver ? false : NO_EDGE_POLL_MS),
  });
  const nginx = status.data?.nginx;
  const error = section.form.formState.errors.edge_driver?.message;
  return (
    <SettingsSection
      title="Edge proxy"
      description="What serves your apps' traffic on the edge's ports. Switching takes a second, on the same ports."
      section={section}
      readOnly={readOnly}
    >
      <Controller
        control={section.form.control}
        name="edge_driver"
        render={({ field }) => (
          <div
            role="radiogroup"
            aria-label="Edge driver"
            aria-describedby="settings-edge-status"
            className="grid gap-3 sm:grid-cols-2"
          >
            {DRIVERS.map((driver) => {
              const unavailable = driver.value === 'nginx' && nginx?.installed === false && field.value !== 'nginx';
              const checked = field.value === driver.value;
              return (
                <label
                  key={driver.value}
                  className={cn(
                    'flex cursor-pointer gap-3 rounded-lg border p-4 transition-colors hover:bg-muted/40',
                    checked && 'border-primary ring-1 ring-primary',
                    unavailable && 'cursor-not-allowed opacity-60 hover:bg-transparent',
                  )}
                >
                  <input
                    type="radio"
                    name={field.name}
                    value={driver.value}
                    checked={checked}
                    disabled={unavailable}
                    onChange={() => field.onChange(driver.value)}
                    onBlur={field.onBlur}
                    className="mt-1 size-4 accent-primary"
                  />
                  <span className="grid gap-1">
                    <span className="flex flex-wrap items-center gap-2 font-medium text-sm">
                      {driver.title}
                      {driver.value === 'embedded' ? <Badge variant="secondary">Default</Badge> : null}
                      {status.data?.driver === driver.value ? <Badge variant="success">Serving</Badge> : null}
                    </span>
                    <span className="text-muted-foreground text-xs">{driver.text}</span>
                    {driver.value === 'nginx' && nginx ? (
                      <span className="text-muted-foreground text-xs">
                        {nginx.installed
                          ? `Installed: ${nginx.version}`
                          : 'Not installed on this machine (apt-get install nginx).'}
                      </span>
                    ) : null}
                  </span>
                </label>
              );
            })}
          </div>
        )}
      />
      <FieldError id="settings-edge-driver-error" message={error} />
      <p id="settings-edge-status" className="text-muted-foreground text-xs">
        {status.data?.driver
          ? `Serving on port ${status.data.port}${status.data.tls_port ? ` and ${status.data.tls_port} (HTTPS)` : ''}, route table ${status.data.route_table_version ?? '–'}.`
          : status.isPending
            ? 'Asking the edge…'
            : 'No edge is running: apps are not reachable until it starts (see the platform log).'}
      </p>
      {status.data?.error ? (
        <p
          role="alert"
          className="flex items-start gap-2 rounded-lg border border-warning/50 bg-warning/10 p-3 text-amber-800 text-sm dark:text-warning"
        >
          <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden />
          <span>nginx refused its latest configuration, so the previous one keeps serving: {status.data.error}</span>
        </p>
      ) : null}
    </SettingsSection>
  );
}
