import type { ProxyLog } from '@launchbay/contract';
import { ArrowUpRight, FileQuestion, Globe, MapPin, Route, Send } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { EmptyState, Page } from '@/components/layout/page';
import { Button, buttonVariants } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { CopyButton } from '@/components/ui/copy-button';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail, isApiError } from '@/lib/api';
import { formatBytes, formatRelativeTime } from '@/lib/format';
import { environmentLabel } from '@/lib/project-queries';
import { cn } from '@/lib/utils';
import { useProxyLog } from './api';
import { deploymentPath, formatFullTime, ipPath, pathWithQuery, projectPath } from './model';
import { BackLink, Duration, HttpStatus, linkClass, Method, Missing, Mono } from './proxy-log-parts';

const BACK = <BackLink to="/proxy-logs" label="Proxy Logs" />;

function parseId(param: string | undefined): number | null {
  if (!param || !/^[1-9]\d{0,9}$/.test(param)) return null;
  const id = Number(param);
  return id <= 2_147_483_647 ? id : null;
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 px-5 py-2.5 sm:grid-cols-[8.5rem_minmax(0,1fr)] sm:gap-4">
      <dt className="text-muted-foreground text-sm">{label}</dt>
      <dd className="min-w-0 break-words text-sm">{children}</dd>
    </div>
  );
}

function Section({
  title,
  icon,
  children,
  className,
}: {
  title: string;
  icon: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  const id = `proxy-log-${title.toLowerCase()}`;
  return (
    <Card className={cn('gap-0 py-0', className)} aria-labelledby={id} role="region">
      <h2
        id={id}
        className="flex items-center gap-2 border-b px-5 py-3 font-semibold text-sm [&_svg]:size-4 [&_svg]:text-muted-foreground"
      >
        {icon}
        {title}
      </h2>
      <dl className="divide-y py-1">{children}</dl>
    </Card>
  );
}

/** Only http(s) referrers become links; anything else is shown as text. */
function safeHref(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

function QueryString({ query }: { query: string | null }) {
  if (!query) return <Missing>None</Missing>;
  let pairs: [string, string][] = [];
  try {
    pairs = [...new URLSearchParams(query)];
  } catch {
    pairs = [];
  }
  return (
    <span className="grid gap-2">
      <Mono className="break-all">?{query}</Mono>
      {pairs.length > 1 || (pairs.length === 1 && pairs[0]?.[1]) ? (
        <span className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-0.5 rounded-md border bg-muted/40 px-3 py-2 font-mono text-xs">
          {pairs.map(([key, value], index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a key may repeat in a query string
            <span key={index} className="contents">
              <span className="text-muted-foreground">{key}</span>
              <span className="break-all">{value || <Missing>(empty)</Missing>}</span>
            </span>
          ))}
        </span>
      ) : null}
    </span>
  );
}

function RequestCard({ log }: { log: ProxyLog }) {
  return (
    <Section title="Request" icon={<Send />}>
      <Row label="Time">
        <span className="grid gap-0.5">
          <time dateTime={log.created_at}>{formatFullTime(log.created_at)}</time>
          <span className="text-muted-foreground text-xs">
            {formatRelativeTime(log.created_at)} · <Mono>{log.created_at}</Mono>
          </span>
        </span>
      </Row>
      <Row label="Method">
        <Method method={log.method} className="text-foreground" />
      </Row>
      <Row label="Host">
        <Link
          to={`/proxy-logs?host=${encodeURIComponent(log.host)}`}
          className={cn(linkClass, 'font-mono text-xs')}
          title="Requests to this host"
        >
          {log.host}
        </Link>
      </Row>
      <Row label="Path">
        <span className="flex min-w-0 items-start gap-2">
          <Mono className="min-w-0 break-all">{log.path}</Mono>
          <CopyButton
            value={`${log.host}${pathWithQuery(log)}`}
            iconOnly
            label="Copy host, path and query"
            variant="ghost"
            size="icon-sm"
            className="-my-1.5 size-7 shrink-0"
          />
        </span>
      </Row>
      <Row label="Query">
        <QueryString query={log.query} />
      </Row>
      <Row label="Status">
        <HttpStatus code={log.status_code} />
      </Row>
      <Row label="Duration">
        <Duration ms={log.duration_ms} />
      </Row>
      <Row label="Bytes in">
        <span className="tabular-nums">{formatBytes(log.bytes_in)}</span>
      </Row>
      <Row label="Bytes out">
        <span className="tabular-nums">{formatBytes(log.bytes_out)}</span>
      </Row>
      <Row label="TLS version">{log.tls_version ? <Mono>{log.tls_version}</Mono> : <Missing>None (plain HTTP)</Missing>}</Row>
    </Section>
  );
}

function ClientCard({ log }: { log: ProxyLog }) {
  const referrer = log.referrer ? safeHref(log.referrer) : null;
  return (
    <Section title="Client" icon={<MapPin />}>
      <Row label="IP address">
        <span className="flex flex-wrap items-center gap-x-3 gap-y-1">
          <Link to={ipPath(log.client_ip)} className={cn(linkClass, 'font-medium font-mono text-xs')}>
            {log.client_ip}
          </Link>
          <Link
            to={ipPath(log.client_ip)}
            className={cn(linkClass, 'text-muted-foreground text-xs hover:text-foreground')}
            tabIndex={-1}
          >
            Location and other requests
          </Link>
        </span>
      </Row>
      <Row label="User agent">
        {log.user_agent ? <span className="break-words font-mono text-xs">{log.user_agent}</span> : <Missing>None sent</Missing>}
      </Row>
      <Row label="Referrer">
        {log.referrer ? (
          referrer ? (
            <a href={referrer} target="_blank" rel="noreferrer noopener" className={cn(linkClass, 'break-all font-mono text-xs')}>
              {log.referrer}
            </a>
          ) : (
            <Mono className="break-all">{log.referrer}</Mono>
          )
        ) : (
          <Missing>None sent</Missing>
        )}
      </Row>
    </Section>
  );
}

function RoutingCard({ log }: { log: ProxyLog }) {
  const slug = log.project_slug;
  return (
    <Section title="Routing" icon={<Route />}>
      {log.route === null ? (
        <div className="flex items-start gap-2 px-5 py-3 text-sm">
          <Globe className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
          <p>
            <span className="font-medium">No route matched — the edge answered itself.</span>{' '}
            <span className="text-muted-foreground">
              No app is set up for this host and path, so the request never reached one.
            </span>
          </p>
        </div>
      ) : null}
      <Row label="Route">{log.route ? <Mono className="break-all">{log.route}</Mono> : <Missing>None</Missing>}</Row>
      <Row label="Project">
        {log.project_id === null ? (
          <Missing>None</Missing>
        ) : slug ? (
          <Link to={projectPath(slug)} className={cn(linkClass, 'font-medium')}>
            {log.project_name ?? slug}
          </Link>
        ) : (
          <span>
            {log.project_name ?? `Project #${log.project_id}`}
            <span className="text-muted-foreground text-xs"> (deleted)</span>
          </span>
        )}
      </Row>
      <Row label="Environment">
        {log.environment_name ? (
          environmentLabel(log.environment_name)
        ) : log.environment_id !== null ? (
          <Mono>#{log.environment_id}</Mono>
        ) : (
          <Missing>None</Missing>
        )}
      </Row>
      <Row label="Deployment">
        {log.deployment_id === null ? (
          <Missing>None</Missing>
        ) : slug ? (
          <Link
            to={deploymentPath(slug, log.deployment_id)}
            className={cn(linkClass, 'inline-flex items-center gap-1 font-mono text-xs')}
          >
            #{log.deployment_id}
            <ArrowUpRight className="size-3.5 text-muted-foreground" aria-hidden="true" />
          </Link>
        ) : (
          <Mono>#{log.deployment_id}</Mono>
        )}
      </Row>
      <Row label="Upstream">
        {log.upstream ? <Mono className="break-all">{log.upstream}</Mono> : <Missing>None (answered by the edge)</Missing>}
      </Row>
    </Section>
  );
}

function Header({ log }: { log: ProxyLog }) {
  return (
    <span className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
      <HttpStatus code={log.status_code} />
      <Method method={log.method} className="text-foreground" />
      <span className="min-w-0 break-all font-mono text-foreground text-xs">
        {log.host}
        {pathWithQuery(log)}
      </span>
      <span className="text-xs">· {formatRelativeTime(log.created_at)}</span>
    </span>
  );
}

function NotFound({ param }: { param: string | undefined }) {
  return (
    <Page title="Proxy log not found" documentTitle="Proxy log not found" back={BACK}>
      <EmptyState
        icon={<FileQuestion />}
        title="This request is not in the log"
        description={
          <>
            There is no logged request
            {param ? (
              <>
                {' '}
                with ID <span className="font-mono">{param}</span>
              </>
            ) : null}
            . Requests are removed once they are older than the log retention period.
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

export default function ProxyLogPage() {
  const { id: param } = useParams();
  const id = parseId(param);
  const { data: log, isPending, isError, error, refetch, isFetching } = useProxyLog(id);

  if (id === null || (isApiError(error) && error.status === 404)) return <NotFound param={param} />;

  if (isError) {
    return (
      <Page title="Proxy Log" documentTitle="Proxy Log" back={BACK}>
        <EmptyState
          title="Could not load this request"
          description={errorDetail(error)}
          action={
            <Button variant="outline" onClick={() => void refetch()} disabled={isFetching}>
              Retry
            </Button>
          }
        />
      </Page>
    );
  }

  if (isPending || !log) {
    return (
      <Page title={<Skeleton className="h-8 w-56" />} documentTitle="Proxy Log" back={BACK}>
        <div className="grid gap-6 lg:grid-cols-2">
          <Skeleton className="h-[30rem] rounded-xl" />
          <div className="grid content-start gap-6">
            <Skeleton className="h-44 rounded-xl" />
            <Skeleton className="h-56 rounded-xl" />
          </div>
        </div>
      </Page>
    );
  }

  return (
    <Page title={`Proxy Log #${log.id}`} documentTitle={`Proxy Log #${log.id}`} description={<Header log={log} />} back={BACK}>
      <div className="grid items-start gap-6 lg:grid-cols-2">
        <RequestCard log={log} />
        <div className="grid gap-6">
          <ClientCard log={log} />
          <RoutingCard log={log} />
        </div>
      </div>
    </Page>
  );
}
