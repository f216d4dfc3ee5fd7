import {
  Activity,
  ArchiveRestore,
  ClipboardList,
  Database,
  FolderGit2,
  GitBranch,
  Globe,
  KeyRound,
  LayoutDashboard,
  type LucideIcon,
  Network,
  ScrollText,
  Settings,
  Split,
  Users,
} from 'lucide-react';

export interface NavItem {
  title: string;
  url: string;
  icon: LucideIcon;
  keywords?: string[];
}

/** Spec section 2, Sidebar: main items. */
export const MAIN_NAV: NavItem[] = [
  { title: 'Dashboard', url: '/dashboard', icon: LayoutDashboard, keywords: ['home', 'overview'] },
  { title: 'Projects', url: '/projects', icon: FolderGit2, keywords: ['apps', 'sites', 'repositories'] },
  { title: 'Storage', url: '/storage', icon: Database, keywords: ['database', 'services', 'redis', 'postgres'] },
  { title: 'Domains', url: '/domains', icon: Globe, keywords: ['dns', 'tls', 'certificates', 'ssl'] },
  { title: 'Monitoring', url: '/monitoring', icon: Activity, keywords: ['alerts', 'notifications', 'uptime'] },
];

/** Spec section 2, Sidebar: settings items. */
export const SETTINGS_NAV: NavItem[] = [
  { title: 'Settings', url: '/settings', icon: Settings, keywords: ['preferences', 'platform'] },
  {
    title: 'External Connectivity',
    url: '/setup/connectivity',
    icon: Network,
    keywords: ['public ip', 'tunnel', 'cloudflare', 'nat', 'access'],
  },
  { title: 'API Keys', url: '/keys', icon: KeyRound, keywords: ['tokens', 'credentials'] },
  { title: 'Users', url: '/users', icon: Users, keywords: ['team', 'members', 'roles', 'admin'] },
  { title: 'Load balancer', url: '/load-balancer', icon: Split, keywords: ['routes', 'proxy', 'lb'] },
  { title: 'Git providers', url: '/git-sources', icon: GitBranch, keywords: ['github', 'gitlab', 'repositories'] },
  { title: 'Backups', url: '/backups', icon: ArchiveRestore, keywords: ['s3', 'restore', 'schedules'] },
  { title: 'Proxy Logs', url: '/proxy-logs', icon: ScrollText, keywords: ['requests', 'traffic', 'access log'] },
  { title: 'Audit Logs', url: '/settings/audit-logs', icon: ClipboardList, keywords: ['history', 'activity'] },
];

/** Header 'Create new' menu (Quick Actions). */
export const QUICK_ACTIONS = [
  { title: 'Create Project', url: '/projects/new' },
  { title: 'Provision Domain', url: '/domains/add' },
  { title: 'Create API Key', url: '/keys/new' },
  { title: 'Add Git Provider', url: '/git-sources/add' },
] as const;

/** Project sub-pages (spec section 2, route table), relative to /projects/{slug}. */
export const PROJECT_PAGES: { title: string; path: string; keywords?: string[] }[] = [
  { title: 'Overview', path: '' },
  { title: 'Deployments', path: '/deployments', keywords: ['builds', 'releases'] },
  { title: 'Analytics', path: '/analytics', keywords: ['traffic', 'stats'] },
  { title: 'Visitors', path: '/analytics/visitors', keywords: ['analytics', 'users'] },
  { title: 'Pages', path: '/analytics/pages', keywords: ['analytics', 'paths'] },
  { title: 'Session Replays', path: '/analytics/replays', keywords: ['analytics', 'rrweb', 'recordings'] },
  { title: 'Funnels', path: '/analytics/funnels', keywords: ['analytics', 'conversion'] },
  { title: 'Requests', path: '/analytics/requests', keywords: ['logs', 'http'] },
  { title: 'Analytics Setup', path: '/analytics/setup', keywords: ['tracker', 'snippet'] },
  { title: 'Storage', path: '/storage', keywords: ['services', 'database'] },
  { title: 'Runtime', path: '/runtime', keywords: ['logs', 'containers', 'processes'] },
  { title: 'Monitors', path: '/monitors', keywords: ['uptime'] },
  { title: 'Settings', path: '/settings', keywords: ['configuration'] },
  { title: 'General Settings', path: '/settings/general' },
  { title: 'Domains', path: '/settings/domains', keywords: ['custom domains'] },
  { title: 'Environments', path: '/settings/environments', keywords: ['staging', 'production'] },
  { title: 'Environment Variables', path: '/settings/environment-variables', keywords: ['env', 'secrets'] },
  { title: 'Git', path: '/settings/git', keywords: ['repository', 'branch'] },
  { title: 'Cron Jobs', path: '/settings/cron-jobs', keywords: ['schedules'] },
  { title: 'Speed', path: '/speed', keywords: ['performance', 'web vitals'] },
  { title: 'Errors', path: '/errors', keywords: ['exceptions', 'sentry'] },
  { title: 'Logs', path: '/logs', keywords: ['output'] },
];

const RESERVED_PROJECT_SEGMENTS = new Set(['new', 'import-wizard', 'import']);

/** The project slug when the path is inside a project (/projects/{slug}/...), else null. */
export function projectSlugFromPath(pathname: string): string | null {
  const match = /^\/projects\/([^/]+)(?:\/|$)/.exec(pathname);
  const slug = match?.[1];
  if (!slug || RESERVED_PROJECT_SEGMENTS.has(slug)) return null;
  return decodeURIComponent(slug);
}

/** The nav item whose URL is the longest prefix of the path (so /settings/audit-logs is not 'Settings'). */
export function activeNavUrl(pathname: string): string | undefined {
  let best: string | undefined;
  for (const item of [...MAIN_NAV, ...SETTINGS_NAV]) {
    if (pathname === item.url || pathname.startsWith(`${item.url}/`)) {
      if (!best || item.url.length > best.length) best = item.url;
    }
  }
  if (pathname.startsWith('/git-providers/')) return '/git-sources';
  return best;
}
