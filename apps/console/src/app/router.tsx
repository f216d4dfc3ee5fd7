import { type ComponentType, useState } from 'react';
import { createBrowserRouter, Navigate, RouterProvider, type RouteObject, useParams } from 'react-router';
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

/** An area that is not built yet: an honest 'Not available yet' page with its title. */
function soon(title: string, subtitle?: string): RouteObject['lazy'] {
  return async () => {
    const { NotAvailablePage } = await withChunkTimeout(
      () => import('@/features/placeholder/not-available-page'),
    );
    return { Component: () => <NotAvailablePage title={title} subtitle={subtitle} /> };
  };
}

const notFound = page(() => import('@/features/placeholder/not-found-page'));

const MONITORING_SECTIONS: Record<string, string> = {
  project: 'Project Health',
  domains: 'Domains',
  backups: 'Backups',
  routes: 'Routes',
  notifications: 'Notifications',
  providers: 'Providers',
};

function monitoringSection(): RouteObject['lazy'] {
  return async () => {
    const [{ NotAvailablePage }, { default: NotFoundPage }] = await Promise.all([
      withChunkTimeout(() => import('@/features/placeholder/not-available-page')),
      withChunkTimeout(() => import('@/features/placeholder/not-found-page')),
    ]);
    function MonitoringSectionPage() {
      const { section = '' } = useParams();
      const label = MONITORING_SECTIONS[section];
      if (!label) return <NotFoundPage />;
      return <NotAvailablePage title="Monitoring & Alerts" subtitle={label} />;
    }
    return { Component: MonitoringSectionPage };
  };
}

const projectDetail = page(() => import('@/features/projects/project-detail-page'));

/** Project sub-pages (spec section 2, route table), relative to /projects/{slug}. */
const PROJECT_SUBPATHS = [
  'deployments',
  'deployments/:deploymentId',
  'analytics',
  'analytics/visitors',
  'analytics/visitors/:visitorId',
  'analytics/pages',
  'analytics/replays',
  'analytics/replays/:replayId',
  'analytics/funnels',
  'analytics/funnels/:funnelId',
  'analytics/requests',
  'analytics/setup',
  'storage',
  'runtime',
  'monitors',
  'settings',
  'settings/general',
  'settings/domains',
  'settings/environments',
  'settings/environment-variables',
  'settings/git',
  'settings/cron-jobs',
  'speed',
  'errors',
  'errors/:groupId',
  'logs',
];

export const routes: RouteObject[] = [
  {
    path: '/',
    lazy: async () => ({ Component: (await withChunkTimeout(() => import('./shell/app-shell'))).AppShell }),
    errorElement: <RouteError />,
    children: [
      {
        errorElement: <RouteError />,
        children: [
          { index: true, element: <Navigate to="/dashboard" replace /> },
          { path: 'dashboard', lazy: page(() => import('@/features/dashboard/dashboard-page')) },
          { path: 'account', lazy: page(() => import('@/features/account/account-page')) },
          { path: 'projects', lazy: page(() => import('@/features/projects/projects-page')) },
          { path: 'projects/new', lazy: soon('Create Project') },
          { path: 'projects/import-wizard', lazy: soon('Import Projects') },
          { path: 'projects/import/*', lazy: soon('Import Projects') },
          {
            path: 'projects/:slug',
            children: [
              { index: true, lazy: projectDetail },
              ...PROJECT_SUBPATHS.map((path) => ({ path, lazy: projectDetail })),
              { path: '*', lazy: notFound },
            ],
          },
          { path: 'storage', lazy: soon('Storage') },
          { path: 'storage/create', lazy: soon('Create Service') },
          { path: 'storage/:id', lazy: soon('Service') },
          { path: 'users', lazy: page(() => import('@/features/users/users-page')) },
          { path: 'load-balancer', lazy: soon('Load balancer') },
          { path: 'git-sources', lazy: soon('Git providers') },
          { path: 'git-sources/add', lazy: soon('Add Git Provider') },
          { path: 'git-providers/:id', lazy: soon('Git provider') },
          { path: 'domains', lazy: soon('Domains') },
          { path: 'domains/add', lazy: soon('Provision Domain') },
          { path: 'domains/:id', lazy: soon('Domain') },
          { path: 'backups', lazy: soon('Backups') },
          { path: 'backups/s3-sources/new', lazy: soon('Add S3 Source') },
          { path: 'backups/s3-sources/:id', lazy: soon('S3 Source') },
          { path: 'backups/s3-sources/:id/backups/:backupId', lazy: soon('Backup') },
          { path: 'settings', lazy: soon('Settings') },
          { path: 'settings/audit-logs', lazy: soon('Audit Logs') },
          { path: 'proxy-logs', lazy: soon('Proxy Logs') },
          { path: 'proxy-logs/:id', lazy: soon('Proxy Log') },
          { path: 'ip/:ip', lazy: soon('IP Lookup') },
          { path: 'setup/connectivity', lazy: soon('External Connectivity') },
          { path: 'keys', lazy: soon('API Keys') },
          { path: 'keys/new', lazy: soon('Create API Key') },
          { path: 'keys/:id', lazy: soon('API Key') },
          { path: 'keys/:id/edit', lazy: soon('Edit API Key') },
          { path: 'monitoring', element: <Navigate to="/monitoring/project" replace /> },
          { path: 'monitoring/providers/add', lazy: soon('Add Provider', 'Monitoring & Alerts') },
          { path: 'monitoring/providers/edit/:id', lazy: soon('Edit Provider', 'Monitoring & Alerts') },
          { path: 'monitoring/:section', lazy: monitoringSection() },
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
