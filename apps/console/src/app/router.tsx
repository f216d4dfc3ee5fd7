import { type ComponentType, useState } from 'react';
import { createBrowserRouter, Navigate, type RouteObject, RouterProvider } from 'react-router';
import { twMerge } from 'tailwind-merge';
import { registerClassMerger } from '@/lib/utils';
import { withChunkTimeout } from './lazy';
import { RouteError } from './route-error';
import { FullScreenLoader } from './status-screens';

// The signed-in app can rely on tailwind-merge (see lib/utils.ts).
registerClassMerger(twMerge);

type PageModule = { default: ComponentType };

/** A lazily loaded page (120 s chunk timeout). */
function page(load: () => Promise<PageModule>): RouteObject['lazy'] {
  return async () => ({ Component: (await withChunkTimeout(load)).default });
}

/** An area that is not built yet: an honest 'Not available yet' page; its title comes from the route handle. */
const notAvailable = page(() => import('@/features/placeholder/not-available-route'));

function soon(title: string, subtitle?: string): Pick<RouteObject, 'handle' | 'lazy'> {
  return { handle: { title, subtitle }, lazy: notAvailable };
}

const notFound = page(() => import('@/components/layout/not-found-page'));

/** Project sub-pages not built yet (spec section 2, route table), relative to /projects/{slug}. */
const PROJECT_SOON: [path: string, title: string][] = [
  ['analytics', 'Analytics'],
  ['analytics/visitors', 'Visitors'],
  ['analytics/visitors/:visitorId', 'Visitor'],
  ['analytics/pages', 'Pages'],
  ['analytics/replays', 'Session Replays'],
  ['analytics/replays/:replayId', 'Session Replay'],
  ['analytics/funnels', 'Funnels'],
  ['analytics/funnels/:funnelId', 'Funnel'],
  ['analytics/requests', 'Requests'],
  ['analytics/setup', 'Analytics Setup'],
  ['storage', 'Storage'],
  ['monitors', 'Monitors'],
  ['speed', 'Speed'],
  ['errors', 'Errors'],
  ['errors/:groupId', 'Error'],
  ['logs', 'Logs'],
];
const PROJECT_SETTINGS_SOON: [path: string, title: string][] = [];
const settingsSoon = page(() => import('@/features/projects/settings-not-available'));

/** /projects/{slug}: the project's layout (header and sections) around its pages. */
const projectRoute: RouteObject = {
  path: 'projects/:slug',
  lazy: page(() => import('@/features/projects/project-layout')),
  children: [
    { index: true, lazy: page(() => import('@/features/projects/project-overview-page')) },
    // Deployments, one deployment and runtime: features/deployments.
    { path: 'deployments', lazy: page(() => import('@/features/deployments/deployments-page')) },
    { path: 'deployments/:deploymentId', lazy: page(() => import('@/features/deployments/deployment-page')) },
    { path: 'runtime', lazy: page(() => import('@/features/deployments/runtime-page')) },
    {
      path: 'settings',
      lazy: page(() => import('@/features/projects/project-settings-layout')),
      children: [
        { index: true, element: <Navigate to="general" replace /> },
        { path: 'general', lazy: page(() => import('@/features/projects/settings-general-page')) },
        { path: 'environments', lazy: page(() => import('@/features/projects/settings-environments-page')) },
        { path: 'environment-variables', lazy: page(() => import('@/features/env-vars/env-vars-page')) },
        { path: 'cron-jobs', lazy: page(() => import('@/features/crons/cron-jobs-page')) },
        { path: 'git', lazy: page(() => import('@/features/projects/settings-git-page')) },
        { path: 'domains', lazy: page(() => import('@/features/projects/settings-domains-page')) },
        ...PROJECT_SETTINGS_SOON.map(([path, title]) => ({ path, handle: { title }, lazy: settingsSoon })),
        { path: '*', lazy: notFound },
      ],
    },
    ...PROJECT_SOON.map(([path, title]) => ({ path, ...soon(title) })),
    { path: '*', lazy: notFound },
  ],
};

export const routes: RouteObject[] = [
  {
    path: '/',
    lazy: async () => ({ Component: (await withChunkTimeout(() => import('./shell/app-shell'))).AppShell }),
    // Shown while the shell chunk loads on the first render (also silences React Router's warning).
    HydrateFallback: () => <FullScreenLoader />,
    errorElement: <RouteError />,
    children: [
      {
        errorElement: <RouteError inShell />,
        children: [
          { index: true, element: <Navigate to="/dashboard" replace /> },
          { path: 'dashboard', lazy: page(() => import('@/features/dashboard/dashboard-page')) },
          { path: 'account', lazy: page(() => import('@/features/account/account-page')) },
          { path: 'projects', lazy: page(() => import('@/features/projects/projects-page')) },
          { path: 'projects/new', lazy: page(() => import('@/features/projects/new-project-page')) },
          { path: 'projects/import-wizard', ...soon('Import Projects') },
          { path: 'projects/import/*', ...soon('Import Projects') },
          projectRoute,
          { path: 'storage', ...soon('Storage') },
          { path: 'storage/create', ...soon('Create Service') },
          { path: 'storage/:id', ...soon('Service') },
          { path: 'users', lazy: page(() => import('@/features/users/users-page')) },
          { path: 'load-balancer', lazy: page(() => import('@/features/load-balancer/load-balancer-page')) },
          { path: 'git-sources', lazy: page(() => import('@/features/git-providers/git-sources-page')) },
          { path: 'git-sources/add', lazy: page(() => import('@/features/git-providers/add-git-provider-page')) },
          { path: 'git-providers/:id', lazy: page(() => import('@/features/git-providers/git-provider-page')) },
          { path: 'domains', lazy: page(() => import('@/features/domains/domains-page')) },
          { path: 'domains/add', lazy: page(() => import('@/features/domains/add-domain-page')) },
          { path: 'domains/:id', lazy: page(() => import('@/features/domains/domain-page')) },
          { path: 'backups', ...soon('Backups') },
          { path: 'backups/s3-sources/new', ...soon('Add S3 Source') },
          { path: 'backups/s3-sources/:id', ...soon('S3 Source') },
          { path: 'backups/s3-sources/:id/backups/:backupId', ...soon('Backup') },
          { path: 'settings', lazy: page(() => import('@/features/settings/settings-page')) },
          { path: 'settings/audit-logs', lazy: page(() => import('@/features/audit/audit-logs-page')) },
          { path: 'proxy-logs', lazy: page(() => import('@/features/proxy-logs/proxy-logs-page')) },
          { path: 'proxy-logs/:id', lazy: page(() => import('@/features/proxy-logs/proxy-log-page')) },
          { path: 'ip/:ip', lazy: page(() => import('@/features/proxy-logs/ip-page')) },
          { path: 'setup/connectivity', lazy: page(() => import('@/features/connectivity/connectivity-page')) },
          { path: 'keys', lazy: page(() => import('@/features/api-keys/api-keys-page')) },
          { path: 'keys/new', lazy: page(() => import('@/features/api-keys/new-api-key-page')) },
          { path: 'keys/:id', lazy: page(() => import('@/features/api-keys/api-key-detail-page')) },
          { path: 'keys/:id/edit', lazy: page(() => import('@/features/api-keys/edit-api-key-page')) },
          { path: 'monitoring', element: <Navigate to="/monitoring/project" replace /> },
          { path: 'monitoring/providers/add', lazy: page(() => import('@/features/notifications/add-provider-page')) },
          { path: 'monitoring/providers/edit/:id', lazy: page(() => import('@/features/notifications/edit-provider-page')) },
          { path: 'monitoring/:section', lazy: page(() => import('@/features/notifications/monitoring-page')) },
          { path: '*', lazy: notFound },
        ],
      },
    ],
  },
];

export default function AuthenticatedApp() {
  const [router] = useState(() => createBrowserRouter(routes));
  return <RouterProvider router={router} />;
}
