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

/** Breadcrumbs from the path: each segment links to its prefix. */
export function breadcrumbsFor(pathname: string): Crumb[] {
  const segments = pathname.split('/').filter(Boolean);
  const crumbs: Crumb[] = [];
  let to = '';
  segments.forEach((segment, index) => {
    to += `/${segment}`;
    const decoded = decodeURIComponent(segment);
    // /setup has no page of its own; /git-providers/{id} belongs under Git providers.
    if (segment === 'setup' && segments[index + 1]) return;
    const label = SEGMENT_LABELS[segment] ?? decoded;
    const isProjectSlug = index === 1 && segments[0] === 'projects' && !SEGMENT_LABELS[segment];
    crumbs.push({ label: isProjectSlug ? decoded : label, to });
  });
  return crumbs;
}
