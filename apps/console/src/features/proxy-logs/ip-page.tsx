import type { GeoLocation } from '@launchbay/contract';
import { AlertTriangle, ArrowUpRight, Globe2, Inbox, MapPinOff, SearchX } from 'lucide-react';
import { type ReactNode, useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { EmptyState, Page } from '@/components/layout/page';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { CopyButton } from '@/components/ui/copy-button';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail } from '@/lib/api';
import { cn } from '@/lib/utils';
import { useGeoLocation, useProxyLogList } from './api';
import { flagEmoji, isIpAddress, type ProxyLogFilter } from './model';
import { BackLink, linkClass, Missing, Mono } from './proxy-log-parts';
import { LoadMoreFooter, ProxyLogTable, ProxyLogTableSkeleton } from './proxy-log-table';

const BACK = <BackLink to="/proxy-logs" label="Proxy Logs" />;

/** What an address without a place is, in a sentence. */
export const KIND_SENTENCE: Record<Exclude<GeoLocation['kind'], 'public'>, { title: string; sentence: string }> = {
  private: {
    title: 'Private address',
    sentence: 'Private address — not on the public internet, so it has no location.',
  },
  loopback: {
    title: 'Loopback address',
    sentence: 'Loopback address — the machine talking to itself, so it has no location.',
  },
  link_local: {
    title: 'Link-local address',
    sentence: 'Link-local address — only reachable on the local network segment, so it has no location.',
  },
  reserved: {
    title: 'Reserved address',
    sentence: 'Reserved address — set aside for special use and not routed on the public internet, so it has no location.',
  },
};

function Field({ label, children, className }: { label: string; children: ReactNode; className?: string }) {
  return (
    <div className={cn('grid min-w-0 content-start gap-1', className)}>
      <dt className="text-muted-foreground text-xs">{label}</dt>
      <dd className="min-w-0 break-words text-sm">{children}</dd>
    </div>
  );
}

function formatCoordinate(value: number, positive: string, negative: string): string {
  return `${Math.abs(value).toFixed(4)}° ${value >= 0 ? positive : negative}`;
}

/** The current time in a zone ('14:03'), or null when the zone is unknown to this browser. */
function localTimeIn(timezone: string): string | null {
  try {
    return new Date().toLocaleTimeString(undefined, { timeZone: timezone, hour: '2-digit', minute: '2-digit' });
  } catch {
    return null;
  }
}

function Place({ geo }: { geo: GeoLocation }) {
  const flag = flagEmoji(geo.country_code);
  const hasPlace = geo.country || geo.city || geo.region || geo.latitude !== null;
  if (!hasPlace) {
    return (
      <div className="flex items-start gap-3 px-5 py-4 text-sm">
        <MapPinOff className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
        <p className="text-muted-foreground">The location database has no entry for this public address.</p>
      </div>
    );
  }
  const localTime = geo.timezone ? localTimeIn(geo.timezone) : null;
  const hasCoordinates = geo.latitude !== null && geo.longitude !== null;
  return (
    <div className="grid gap-5 px-5 py-4">
      <div className="flex min-w-0 items-center gap-3">
        {flag ? (
          <span className="text-4xl leading-none" role="img" aria-label={geo.country ?? geo.country_code ?? undefined}>
            {flag}
          </span>
        ) : null}
        <div className="min-w-0">
          <p className="truncate font-semibold text-lg leading-tight">
            {[geo.city, geo.region].filter(Boolean).join(', ') || geo.country || 'Unknown place'}
          </p>
          {geo.city || geo.region ? <p className="text-muted-foreground text-sm">{geo.country}</p> : null}
        </div>
      </div>
      <dl className="grid grid-cols-2 gap-x-6 gap-y-4 sm:grid-cols-3 lg:grid-cols-5">
        <Field label="Country">
          {geo.country ? (
            <span>
              {geo.country}
              {geo.country_code ? <span className="text-muted-foreground"> ({geo.country_code.toUpperCase()})</span> : null}
            </span>
          ) : (
            <Missing />
          )}
        </Field>
        <Field label="Region">{geo.region ?? <Missing />}</Field>
        <Field label="City">{geo.city ?? <Missing />}</Field>
        <Field label="Coordinates">
          {hasCoordinates ? (
            <a
              href={`https://www.openstreetmap.org/?mlat=${geo.latitude}&mlon=${geo.longitude}#map=10/${geo.latitude}/${geo.longitude}`}
              target="_blank"
              rel="noreferrer noopener"
              className={cn(linkClass, 'inline-flex items-center gap-1 font-mono text-xs tabular-nums')}
              title="Open in OpenStreetMap"
            >
              {formatCoordinate(geo.latitude ?? 0, 'N', 'S')}, {formatCoordinate(geo.longitude ?? 0, 'E', 'W')}
              <ArrowUpRight className="size-3.5 shrink-0 text-muted-foreground" aria-hidden="true" />
            </a>
          ) : (
            <Missing />
          )}
        </Field>
        <Field label="Timezone">
          {geo.timezone ? (
            <span className="grid gap-0.5">
              <Mono>{geo.timezone}</Mono>
              {localTime ? <span className="text-muted-foreground text-xs">{localTime} there now</span> : null}
            </span>
          ) : (
            <Missing />
          )}
        </Field>
      </dl>
    </div>
  );
}

function LocationCard({ ip }: { ip: string }) {
  const { data: geo, isPending, isError, error, refetch, isFetching } = useGeoLocation(ip);
  const kind = geo && geo.kind !== 'public' ? KIND_SENTENCE[geo.kind] : null;
  return (
    <Card className="gap-0 py-0" role="region" aria-labelledby="ip-location">
      <div className="flex items-center justify-between gap-3 border-b px-5 py-3">
        <h2 id="ip-location" className="flex items-center gap-2 font-semibold text-sm">
          <Globe2 className="size-4 text-muted-foreground" aria-hidden="true" />
          Location
        </h2>
        {geo ? (
          <span
            className={cn(
              'rounded-full border px-2 py-0.5 font-medium text-xs',
              geo.kind === 'public'
                ? 'border-sky-500/25 bg-sky-500/10 text-sky-700 dark:text-sky-300'
                : 'bg-muted text-muted-foreground',
            )}
          >
            {geo.kind === 'public' ? 'Public address' : kind?.title}
          </span>
        ) : null}
      </div>
      {isPending ? (
        <div className="grid gap-4 px-5 py-4">
          <Skeleton className="h-10 w-64" />
          <Skeleton className="h-12 w-full" />
        </div>
      ) : isError ? (
        <div className="flex flex-wrap items-center justify-between gap-3 px-5 py-4 text-sm">
          <p className="flex items-center gap-2 text-muted-foreground">
            <AlertTriangle className="size-4 shrink-0 text-destructive" aria-hidden="true" />
            Could not look up this address: {errorDetail(error)}
          </p>
          <Button variant="outline" size="sm" onClick={() => void refetch()} disabled={isFetching}>
            Retry
          </Button>
        </div>
      ) : kind ? (
        <div className="flex items-start gap-3 px-5 py-4 text-sm">
          <MapPinOff className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
          <p>{kind.sentence}</p>
        </div>
      ) : (
        <Place geo={geo} />
      )}
      {geo?.kind === 'public' && geo.source ? (
        <p className="border-t px-5 py-2.5 text-muted-foreground text-xs">{geo.source}</p>
      ) : null}
    </Card>
  );
}

function Requests({ ip }: { ip: string }) {
  // All time: everything still kept from this address.
  const filter = useMemo<ProxyLogFilter>(() => ({ client_ip: ip }), [ip]);
  const [anchor] = useState(() => Date.now());
  const { data, isPending, isError, error, refetch, isFetching, hasNextPage, isFetchingNextPage, fetchNextPage } =
    useProxyLogList(filter, anchor);
  const logs = useMemo(() => data?.pages.flatMap((page) => page.logs) ?? [], [data]);

  return (
    <section className="grid gap-3" aria-labelledby="ip-requests">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <h2 id="ip-requests" className="font-semibold text-lg tracking-tight">
          Requests from this IP
        </h2>
        <Link
          to={`/proxy-logs?range=all&client_ip=${encodeURIComponent(ip)}`}
          className={cn(linkClass, 'text-muted-foreground text-sm hover:text-foreground')}
        >
          Filter in Proxy Logs
        </Link>
      </div>
      {isPending ? (
        <ProxyLogTableSkeleton rows={5} />
      ) : isError && !data ? (
        <EmptyState
          icon={<AlertTriangle />}
          title="Could not load the requests"
          description={errorDetail(error)}
          action={
            <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
              Retry
            </Button>
          }
        />
      ) : logs.length === 0 ? (
        <EmptyState
          icon={<Inbox />}
          title="No requests from this IP"
          description="Nothing in the proxy log came from this address, or its requests are older than the log retention period."
        />
      ) : (
        <div className="grid gap-3">
          <ProxyLogTable logs={logs} hide={['client_ip']} />
          {isError ? (
            <p role="alert" className="text-center text-destructive text-sm">
              Could not load more: {errorDetail(error)}
            </p>
          ) : null}
          <LoadMoreFooter
            shown={logs.length}
            hasMore={hasNextPage}
            loading={isFetchingNextPage}
            onLoadMore={() => void fetchNextPage()}
          />
        </div>
      )}
    </section>
  );
}

export default function IpPage() {
  const { ip: param = '' } = useParams();
  const ip = param.trim();

  if (!isIpAddress(ip)) {
    return (
      <Page title="IP Lookup" documentTitle="IP Lookup" back={BACK}>
        <EmptyState
          icon={<SearchX />}
          title="Not an IP address"
          description={
            <>
              <span className="break-all font-mono">{param || '(empty)'}</span> is not an IPv4 or IPv6 address.
            </>
          }
          action={
            <Link to="/proxy-logs" className={buttonVariants({ variant: 'outline' })}>
              Back to Proxy Logs
            </Link>
          }
        />
      </Page>
    );
  }

  return (
    <Page
      title={
        <span className="flex min-w-0 items-center gap-2">
          <span className="break-all font-mono">{ip}</span>
          <CopyButton value={ip} iconOnly label="Copy IP address" variant="ghost" size="icon-sm" className="shrink-0" />
        </span>
      }
      documentTitle={`IP Lookup: ${ip}`}
      description="Where this address is, and what it asked the edge for."
      back={BACK}
    >
      <LocationCard key={`geo-${ip}`} ip={ip} />
      <Requests key={`requests-${ip}`} ip={ip} />
    </Page>
  );
}
