import type { Deployment, DeploymentStatus } from '@launchbay/contract';
import { formatDuration } from '@/lib/format';

/** The deployment's route helpers (the project layout owns /projects/{slug}). */
export function projectBase(slug: string): string {
  return `/projects/${encodeURIComponent(slug)}`;
}

export function deploymentPath(slug: string, deployment: Pick<Deployment, 'id'>): string {
  return `${projectBase(slug)}/deployments/${deployment.id}`;
}

/** Still on its way: queued, building or deploying. The page polls while it is. */
export function isInProgress(status: DeploymentStatus): boolean {
  return status === 'queued' || status === 'building' || status === 'deploying';
}

export type DeploymentStep = {
  id: number;
  name: string;
  status: 'pending' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'cancelled';
  detail: string | null;
  started_at: string | null;
  finished_at: string | null;
};

/** The first line of a commit message. */
export function commitTitle(message: string | null | undefined): string {
  return (message ?? '').split('\n')[0]?.trim() ?? '';
}

/** 'Ada Lovelace <ada@example.com>' -> 'Ada Lovelace'. */
export function authorName(author: string | null | undefined): string {
  if (!author) return '';
  return author.replace(/\s*<[^>]*>\s*$/, '').trim() || author;
}

const TRIGGERS: Record<string, string> = {
  create: 'Project created',
  manual: 'Manual',
  redeploy: 'Redeploy',
  rollback: 'Rollback',
  env_change: 'Env change',
  push: 'Git push',
};

export function triggerLabel(trigger: string): string {
  return TRIGGERS[trigger] ?? trigger.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
}

/** 'restore cache' -> 'Restore cache'. */
export function stepLabel(name: string): string {
  return name.replace(/^./, (c) => c.toUpperCase());
}

const ms = (iso: string | null | undefined) => (iso ? new Date(iso).getTime() : Number.NaN);

/** A span of milliseconds, for durations people read: '850ms', '12.4s', '3m 05s', '1h 12m'. */
export function formatElapsed(milliseconds: number): string {
  if (!Number.isFinite(milliseconds) || milliseconds < 0) return '—';
  if (milliseconds < 1000) return `${Math.round(milliseconds)}ms`;
  const seconds = milliseconds / 1000;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)}s`;
  if (seconds < 3600) {
    const minutes = Math.floor(seconds / 60);
    return `${minutes}m ${String(Math.floor(seconds % 60)).padStart(2, '0')}s`;
  }
  return formatDuration(seconds);
}

/**
 * How long the deployment took from queued to live (or to its end): null while it has not
 * started, counting up to `now` while it is on its way.
 */
export function deploymentElapsed(deployment: Deployment, now = Date.now()): number | null {
  const start = ms(deployment.queued_at);
  if (Number.isNaN(start)) return null;
  const end = ms(deployment.ready_at ?? deployment.finished_at);
  if (!Number.isNaN(end)) return Math.max(0, end - start);
  if (isInProgress(deployment.status)) return Math.max(0, now - start);
  return null;
}

export function stepElapsed(step: DeploymentStep, now = Date.now()): number | null {
  const start = ms(step.started_at);
  if (Number.isNaN(start)) return null;
  const end = ms(step.finished_at);
  if (!Number.isNaN(end)) return Math.max(0, end - start);
  return step.status === 'running' ? Math.max(0, now - start) : null;
}

/** Which actions apply to a deployment (the server answers 409 to the others). */
export function availableActions(deployment: Deployment) {
  const live = deployment.ready_at !== null && deployment.commit_sha !== null;
  return {
    cancel: isInProgress(deployment.status),
    pause: deployment.status === 'ready' && deployment.is_current,
    resume: (deployment.status === 'paused' || deployment.status === 'crashed') && deployment.is_current,
    redeploy: deployment.commit_sha !== null && !isInProgress(deployment.status),
    rollback: live && !deployment.is_current && !isInProgress(deployment.status),
  };
}

/** The name a downloaded log gets: 'shop-deployment-12'. */
export function logFilename(slug: string, deploymentId: number, kind = 'deployment'): string {
  return `${slug}-${kind}-${deploymentId}`;
}
