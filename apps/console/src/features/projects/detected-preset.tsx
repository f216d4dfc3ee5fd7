import type { DetectedSettings, DetectSettingsRequest } from '@launchbay/contract';
import type { UseQueryResult } from '@tanstack/react-query';
import { FileJson, ScrollText, Sparkles, TriangleAlert } from 'lucide-react';
import { useMemo } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Skeleton } from '@/components/ui/skeleton';
import { errorDetail } from '@/lib/api';
import { useLivePreset } from '@/lib/git-queries';
import { shortSha } from '@/lib/project-queries';
import { useDebouncedValue } from '@/lib/use-debounced-value';
import { useDetectedSettings } from './api';

function Setting({ label, value }: { label: string; value: string | number | null }) {
  return (
    <div className="grid min-w-0 grid-cols-[7rem_minmax(0,1fr)] items-baseline gap-3 py-2 first:pt-0 last:pb-0">
      <dt className="text-muted-foreground text-xs">{label}</dt>
      <dd className="min-w-0 break-words text-sm">
        {value === null || value === '' ? (
          <span className="text-muted-foreground">None</span>
        ) : (
          <code className="font-mono text-xs">{value}</code>
        )}
      </dd>
    </div>
  );
}

function PresetSettings({ preset }: { preset: DetectedSettings }) {
  return (
    <div className="grid gap-3">
      <div className="flex flex-wrap items-center gap-2">
        <span className="flex items-center gap-1.5 font-medium text-sm">
          <Sparkles className="size-4 text-muted-foreground" />
          {preset.preset_name ?? 'No framework detected'}
        </span>
        {preset.has_launchbay_json ? (
          <Badge variant="secondary" className="font-mono font-normal">
            launchbay.json
          </Badge>
        ) : null}
        {preset.has_procfile ? (
          <Badge variant="outline" className="font-mono font-normal">
            Procfile
          </Badge>
        ) : null}
      </div>
      {preset.errors.length > 0 ? (
        <div
          role="alert"
          className="grid gap-1.5 rounded-lg border border-destructive/30 bg-destructive/5 px-3 py-2.5 text-destructive text-xs"
        >
          <p className="flex items-center gap-1.5 font-medium">
            <TriangleAlert className="size-3.5" />
            The build configuration has errors: the first deployment would fail.
          </p>
          <ul className="grid gap-0.5 pl-5">
            {preset.errors.map((error) => (
              <li key={`${error.path}:${error.message}`} className="list-disc break-words">
                <span className="font-mono">{error.path}</span>: {error.message}
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <dl className="divide-y rounded-lg border px-3 py-2">
          <Setting label="Install command" value={preset.install_command} />
          <Setting label="Build command" value={preset.build_command} />
          <Setting label="Start command" value={preset.start_command} />
          <Setting label="Output folder" value={preset.output_directory} />
          {preset.port !== null ? <Setting label="Port" value={preset.port} /> : null}
        </dl>
      )}
      {preset.has_launchbay_json ? (
        <p className="flex items-start gap-2 text-muted-foreground text-xs">
          <FileJson className="mt-px size-3.5 shrink-0" />
          <span>
            The repository's <code className="font-mono text-foreground">launchbay.json</code> decides these settings: it wins
            over the project's build settings.
          </span>
        </p>
      ) : preset.has_procfile ? (
        <p className="flex items-start gap-2 text-muted-foreground text-xs">
          <ScrollText className="mt-px size-3.5 shrink-0" />
          <span>
            The repository's <code className="font-mono text-foreground">Procfile</code> names the processes to run.
          </span>
        </p>
      ) : (
        <p className="text-muted-foreground text-xs">Change them after creating the project, in its settings.</p>
      )}
    </div>
  );
}

/** What the branch would build as, read from its head commit now (GET /repositories/{id}/preset/live). */
export function DetectedPreset({ repositoryId, branch }: { repositoryId: number; branch: string | null }) {
  const preset = useLivePreset(repositoryId, branch);
  return <DetectedSection branch={branch} preset={preset} />;
}

/**
 * What a git URL's branch would build as (POST /projects/detect), once the address, token, branch
 * and folder have stopped changing for a moment. An ssh address has no deploy key before the
 * project exists, so it is read at the first deployment instead.
 */
export function DetectedFromGitUrl({
  gitUrl,
  token,
  branch,
  rootDirectory,
}: {
  gitUrl: string;
  token: string;
  branch: string;
  rootDirectory: string;
}) {
  // Debounced as a string: an object would be a new value at every render and never settle.
  const settled = useDebouncedValue(
    JSON.stringify({
      git_url: gitUrl.trim(),
      git_token: token.trim() || undefined,
      branch: branch.trim(),
      root_directory: rootDirectory.trim() || undefined,
    }),
    DETECT_DEBOUNCE_MS,
  );
  const input = useMemo(() => JSON.parse(settled) as DetectSettingsRequest & { branch: string; git_url: string }, [settled]);
  const readable = /^https?:\/\/[^/\s]+\/\S+/.test(input.git_url) && input.branch !== '';
  const isSsh = /^(ssh:\/\/|git\+ssh:\/\/|[\w.-]+@[\w.-]+:)/.test(gitUrl.trim());
  const preset = useDetectedSettings(readable ? input : null);
  if (isSsh) {
    return (
      <p className="rounded-lg border bg-muted/20 p-4 text-muted-foreground text-sm">
        An ssh repository is read with the deploy key the project gets when it is created: its settings are detected at its first
        deployment.
      </p>
    );
  }
  if (!readable) {
    return (
      <p className="rounded-lg border bg-muted/20 p-4 text-muted-foreground text-sm">
        Enter the repository's address and branch to see how it would build.
      </p>
    );
  }
  return <DetectedSection branch={input.branch} preset={preset} />;
}

/** How long the new-project form waits after the last keystroke before it reads the repository (a clone). */
const DETECT_DEBOUNCE_MS = 700;

function DetectedSection<Settings extends DetectedSettings>({
  branch,
  preset,
}: {
  branch: string | null;
  preset: UseQueryResult<Settings, unknown>;
}) {
  return (
    <section aria-labelledby="detected-settings-title" className="grid gap-3 rounded-lg border bg-muted/20 p-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h3 id="detected-settings-title" className="font-medium text-sm">
          Detected settings
        </h3>
        {preset.data ? (
          <span className="text-muted-foreground text-xs">
            {preset.data.branch} at <code className="font-mono">{shortSha(preset.data.commit_sha)}</code>
          </span>
        ) : null}
      </div>
      {!branch ? (
        <p className="text-muted-foreground text-sm">Pick a branch to see how it would build.</p>
      ) : preset.isPending ? (
        <div className="grid gap-2" role="status" aria-busy="true" aria-label={`Reading ${branch}`}>
          <p className="text-muted-foreground text-xs">Reading {branch} from the host…</p>
          <Skeleton className="h-4 w-40" />
          <Skeleton className="h-24 w-full rounded-lg" />
        </div>
      ) : preset.isError ? (
        <div
          role="alert"
          className="grid justify-items-start gap-2 rounded-lg border border-warning/50 bg-warning/10 px-3 py-2.5 text-amber-800 text-sm dark:text-warning"
        >
          <p>
            Could not read {branch}: {errorDetail(preset.error)}
          </p>
          <Button variant="outline" size="sm" onClick={() => void preset.refetch()} disabled={preset.isFetching}>
            Retry
          </Button>
        </div>
      ) : (
        <PresetSettings preset={preset.data} />
      )}
    </section>
  );
}
