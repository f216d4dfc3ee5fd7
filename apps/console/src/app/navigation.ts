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
import { PROJECT_PAGES } from '@/features/projects/project-pages';

export { PROJECT_PAGES };

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
