import type { Preview } from '@launchbay/contract';
import { previewAddressLabel } from '@launchbay/contract';

/** What a preview's badge says: its approval, else its latest deployment's status. */
export type PreviewStatus = 'awaiting_approval' | 'building' | 'ready' | 'failed' | 'cancelled';

export const PREVIEW_STATUS_LABEL: Record<PreviewStatus, string> = {
  awaiting_approval: 'Awaiting approval',
  building: 'Building',
  ready: 'Ready',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/**
 * A fork's pull request waits for approval (again after each new commit, while the approved one
 * keeps serving); otherwise its deployment says: on its way (or not started yet) is Building.
 */
export function previewStatus(preview: Pick<Preview, 'state' | 'deployment_status'>): PreviewStatus {
  if (preview.state === 'awaiting_approval') return 'awaiting_approval';
  switch (preview.deployment_status) {
    case 'ready':
      return 'ready';
    case 'failed':
    case 'crashed':
      return 'failed';
    case 'cancelled':
    case 'paused':
      return 'cancelled';
    default:
      return 'building';
  }
}

/** Whether the preview's address serves something now (its latest deployment is ready). */
export function previewIsLive(preview: Pick<Preview, 'deployment_status'>): boolean {
  return preview.deployment_status === 'ready';
}

/**
 * Where pull request `prNumber` of the project would be served: its production address with the
 * project's label swapped for the preview's ('http://shop.localhost:8080' -> 'http://pr-42-shop.localhost:8080').
 * Null when the production address is not the project's own label (then only the label is known).
 */
export function previewAddressExample(template: string, project: { slug: string; url: string }, prNumber = 42): string | null {
  try {
    const url = new URL(project.url);
    if (!url.hostname.startsWith(`${project.slug}.`)) return null;
    url.hostname = `${previewAddressLabel(template, prNumber, project.slug)}${url.hostname.slice(project.slug.length)}`;
    return url.toString().replace(/\/$/, '');
  } catch {
    return null;
  }
}
