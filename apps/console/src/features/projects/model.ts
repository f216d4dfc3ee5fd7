import type { Deployment, Environment, ProjectDetail } from '@launchbay/contract';
import { useParams } from 'react-router';
import { useDeployment, useProjectBySlug } from '@/lib/project-queries';

/** The production environment (created with the project). */
export function productionOf(project: ProjectDetail): Environment | undefined {
  return project.environments.find((env) => env.is_production) ?? project.environments[0];
}

/**
 * The deployment production serves now: the latest one when it is current (no extra request),
 * else fetched by the environment's current_deployment_id.
 */
export function useCurrentDeployment(project: ProjectDetail | undefined, environment?: Environment) {
  const env = environment ?? (project ? productionOf(project) : undefined);
  const currentId = env?.current_deployment_id ?? null;
  const fromLast = project?.last_deployment && project.last_deployment.id === currentId ? project.last_deployment : undefined;
  const query = useDeployment(project?.id, fromLast ? null : currentId);
  return { deployment: fromLast ?? query.data ?? null, isPending: currentId !== null && !fromLast && query.isPending };
}

/** The project of the current /projects/{slug} route (the layout has loaded it before its pages render). */
export function useRouteProject() {
  const { slug = '' } = useParams();
  return { slug, ...useProjectBySlug(slug) };
}

export function projectBase(slug: string): string {
  return `/projects/${encodeURIComponent(slug)}`;
}

export function deploymentPath(slug: string, deployment: Pick<Deployment, 'id'>): string {
  return `${projectBase(slug)}/deployments/${deployment.id}`;
}

/** 'Ada Lovelace <ada@example.com>' -> 'Ada Lovelace'. */
export function authorName(author: string | null | undefined): string {
  if (!author) return '';
  return author.replace(/\s*<[^>]*>\s*$/, '').trim() || author;
}

/** The first line of a commit message. */
export function commitTitle(message: string | null | undefined): string {
  return (message ?? '').split('\n')[0]?.trim() ?? '';
}

/** The frame of a project page below the project's header (the width and padding of the console's pages). */
export const SECTION = 'mx-auto flex w-full max-w-6xl flex-1 flex-col gap-6 px-4 py-6 sm:px-6 lg:px-8';
