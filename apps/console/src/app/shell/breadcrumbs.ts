export interface Crumb {
  label: string;
  to: string;
}

const SEGMENT_LABELS: Record<string, string> = {
  dashboard: 'Dashboard',
  account: 'Account',
  projects: 'Projects',
  new: 'New',
  'import-wizard': 'Import Wizard',
  import: 'Import',
  storage: 'Storage',
  create: 'Create',
  users: 'Users',
  'load-balancer': 'Load balancer',
  'git-sources': 'Git providers',
  'git-providers': 'Git providers',
  add: 'Add',
  domains: 'Domains',
  backups: 'Backups',
  's3-sources': 'S3 Sources',
  settings: 'Settings',
  'audit-logs': 'Audit Logs',
  'proxy-logs': 'Proxy Logs',
  ip: 'IP Lookup',
  setup: 'Setup',
  connectivity: 'External Connectivity',
  keys: 'API Keys',
  edit: 'Edit',
  monitoring: 'Monitoring',
  project: 'Project Health',
  routes: 'Routes',
  notifications: 'Notifications',
  providers: 'Providers',
  deployments: 'Deployments',
  analytics: 'Analytics',
  visitors: 'Visitors',
  pages: 'Pages',
  replays: 'Session Replays',
  funnels: 'Funnels',
  requests: 'Requests',
  runtime: 'Runtime',
  monitors: 'Monitors',
  general: 'General',
  environments: 'Environments',
  'environment-variables': 'Environment Variables',
  git: 'Git',
  'cron-jobs': 'Cron Jobs',
  speed: 'Speed',
  errors: 'Errors',
  logs: 'Logs',
};

/** Path prefixes that have no page of their own: they are skipped when a deeper page follows. */
const NO_PAGE = new Set(['/setup', '/ip', '/monitoring/providers/edit', '/backups/s3-sources', '/projects/import']);
/** Prefixes whose list page lives elsewhere. */
const LIST_PAGE: Record<string, string> = { '/git-providers': '/git-sources' };

/** Breadcrumbs from the path: each segment links to its prefix. */
export function breadcrumbsFor(pathname: string): Crumb[] {
  const segments = pathname.split('/').filter(Boolean);
  const crumbs: Crumb[] = [];
  let to = '';
  segments.forEach((segment, index) => {
    to += `/${segment}`;
    const decoded = decodeURIComponent(segment);
    if (NO_PAGE.has(to) && segments[index + 1]) return;
    const isProjectSlug = index === 1 && segments[0] === 'projects' && !SEGMENT_LABELS[segment];
    const label = isProjectSlug ? decoded : (SEGMENT_LABELS[segment] ?? (/^\d+$/.test(decoded) ? `#${decoded}` : decoded));
    crumbs.push({ label, to: LIST_PAGE[to] ?? to });
  });
  return crumbs;
}
