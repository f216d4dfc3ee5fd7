import { STATUS_CLASSES } from '@launchbay/contract';
import { Search, X } from 'lucide-react';
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui/select';
import { PALETTE_PROJECTS_PER_PAGE } from '@/lib/constants';
import { useProjects } from '@/lib/projects';
import { useDebouncedValue } from '@/lib/use-debounced-value';
import { cn } from '@/lib/utils';
import { DEFAULT_RANGE, type FilterParam, hasActiveFilters, isIpAddress, type ListFilters, TIME_RANGES } from './model';

export type FilterUpdate = Partial<Record<FilterParam, string | null>>;

const ALL = '__all__';

/**
 * Text typed into a filter reaches the URL (and so the query) once typing pauses, or at once on
 * Enter. Values `accept` refuses stay in the box and are not sent (a half-typed IP address).
 */
function useDebouncedText(urlValue: string, commit: (value: string) => void, accept: (value: string) => boolean = () => true) {
  const [text, setText] = useState(urlValue);
  const debounced = useDebouncedValue(text);
  const committed = useRef(urlValue);
  const commitRef = useRef(commit);
  commitRef.current = commit;
  const acceptRef = useRef(accept);
  acceptRef.current = accept;

  // The URL changed from elsewhere (back/forward, a link, Clear filters): show its value.
  useEffect(() => {
    if (urlValue !== committed.current) {
      committed.current = urlValue;
      setText(urlValue);
    }
  }, [urlValue]);

  const send = (raw: string) => {
    const value = raw.trim();
    if (value === committed.current || !acceptRef.current(value)) return;
    committed.current = value;
    commitRef.current(value);
  };
  const sendRef = useRef(send);
  sendRef.current = send;

  useEffect(() => {
    sendRef.current(debounced);
  }, [debounced]);

  return { text, setText, flush: () => send(text) };
}

const acceptIp = (value: string) => value === '' || isIpAddress(value);

function Field({ id, label, className, children }: { id: string; label: string; className?: string; children: ReactNode }) {
  return (
    <div className={cn('grid min-w-0 content-start gap-1.5', className)}>
      <Label htmlFor={id} className="text-muted-foreground text-xs">
        {label}
      </Label>
      {children}
    </div>
  );
}

export function FilterBar({ filters, update }: { filters: ListFilters; update: (changes: FilterUpdate) => void }) {
  const host = useDebouncedText(filters.host, (value) => update({ host: value || null }));
  const path = useDebouncedText(filters.path, (value) => update({ path: value || null }));
  const ip = useDebouncedText(filters.client_ip, (value) => update({ client_ip: value || null }), acceptIp);
  const ipInvalid = ip.text.trim() !== '' && !isIpAddress(ip.text.trim());
  const { data: projectList } = useProjects(1, PALETTE_PROJECTS_PER_PAGE);
  const projects = projectList?.projects ?? [];
  const unknownProject = filters.project_id !== null && !projects.some((project) => project.id === filters.project_id);
  const statusClasses = STATUS_CLASSES.filter((value) => value !== '1xx' || filters.status_class === '1xx');

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    host.flush();
    path.flush();
    ip.flush();
  };

  return (
    <search aria-label="Filter the requests">
      <form onSubmit={onSubmit} className="grid gap-3">
        <div className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-[10.5rem_8.5rem_minmax(0,1fr)_minmax(0,1fr)_minmax(0,1fr)_minmax(0,1fr)]">
          <Field id="proxy-range" label="Time range">
            <Select value={filters.range} onValueChange={(value) => update({ range: value === DEFAULT_RANGE ? null : value })}>
              <SelectTrigger id="proxy-range">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                {TIME_RANGES.map((range) => (
                  <SelectItem key={range.value} value={range.value}>
                    {range.label}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </Field>
          <Field id="proxy-status" label="Status">
            <Select
              value={filters.status_class ?? ALL}
              onValueChange={(value) => update({ status_class: value === ALL ? null : value })}
            >
              <SelectTrigger id="proxy-status">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value={ALL}>All statuses</SelectItem>
                {statusClasses.map((value) => (
                  <SelectItem key={value} value={value}>
                    {value}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </Field>
          <Field id="proxy-project" label="Project" className="col-span-2 md:col-span-1">
            <Select
              value={filters.project_id === null ? ALL : String(filters.project_id)}
              onValueChange={(value) => update({ project_id: value === ALL ? null : value })}
            >
              <SelectTrigger id="proxy-project">
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                <SelectItem value={ALL}>All projects</SelectItem>
                {projects.map((project) => (
                  <SelectItem key={project.id} value={String(project.id)}>
                    {project.name}
                  </SelectItem>
                ))}
                {unknownProject ? (
                  <SelectItem value={String(filters.project_id)}>Project #{filters.project_id}</SelectItem>
                ) : null}
              </SelectContent>
            </Select>
          </Field>
          <Field id="proxy-host" label="Host" className="col-span-2 md:col-span-1">
            <div className="relative">
              <Search className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground" />
              <Input
                id="proxy-host"
                type="search"
                placeholder="app.example.com"
                autoComplete="off"
                spellCheck={false}
                className="pl-8 font-mono md:text-xs"
                value={host.text}
                onChange={(event) => host.setText(event.target.value)}
              />
            </div>
          </Field>
          <Field id="proxy-path" label="Path starts with">
            <Input
              id="proxy-path"
              type="search"
              placeholder="/api"
              autoComplete="off"
              spellCheck={false}
              className="font-mono md:text-xs"
              value={path.text}
              onChange={(event) => path.setText(event.target.value)}
            />
          </Field>
          <Field id="proxy-ip" label="Client IP">
            <Input
              id="proxy-ip"
              type="search"
              placeholder="203.0.113.7"
              autoComplete="off"
              spellCheck={false}
              className="font-mono md:text-xs"
              aria-invalid={ipInvalid || undefined}
              aria-describedby={ipInvalid ? 'proxy-ip-hint' : undefined}
              value={ip.text}
              onChange={(event) => ip.setText(event.target.value)}
            />
            {ipInvalid ? (
              <p id="proxy-ip-hint" className="text-destructive text-xs">
                Enter a full IPv4 or IPv6 address
              </p>
            ) : null}
          </Field>
        </div>
        {hasActiveFilters(filters) ? (
          <div className="-mt-1 flex flex-wrap items-center gap-2">
            <Button
              variant="ghost"
              size="sm"
              className="h-7 px-2 text-muted-foreground"
              onClick={() =>
                update({ range: null, status_class: null, host: null, path: null, client_ip: null, project_id: null })
              }
            >
              <X />
              Clear filters
            </Button>
          </div>
        ) : null}
        {/* Enter in a text filter applies it at once. */}
        <button type="submit" hidden tabIndex={-1} aria-hidden="true" />
      </form>
    </search>
  );
}
