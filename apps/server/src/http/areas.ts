import type { AppContext } from '../context';
import type { App } from '../lib/http';
import { apiKeyRoutes } from '../modules/api-keys/routes';
import { auditRoutes } from '../modules/audit/routes';
import { authRoutes } from '../modules/auth/routes';
import { cronRoutes } from '../modules/crons/routes';
import { deploymentRoutes } from '../modules/deployments/routes';
import { projectDomainRoutes } from '../modules/domains/project-routes';
import { domainRoutes } from '../modules/domains/routes';
import { envVarRoutes } from '../modules/env-vars/routes';
import { environmentRoutes } from '../modules/environments/routes';
import { geoRoutes } from '../modules/geo/routes';
import { gitProviderRoutes } from '../modules/git-providers/routes';
import { jobRoutes } from '../modules/jobs/routes';
import { loadBalancerRoutes } from '../modules/load-balancer/routes';
import { notificationRoutes } from '../modules/notifications/routes';
import { platformRoutes } from '../modules/platform/routes';
import { previewRoutes } from '../modules/previews/routes';
import { projectRoutes } from '../modules/projects/routes';
import { proxyLogRoutes } from '../modules/proxy-logs/routes';
import { settingsRoutes } from '../modules/settings/routes';
import { userRoutes } from '../modules/users/routes';
import { webhookRoutes } from '../modules/webhooks/routes';

/** Every area's routes, mounted under /api. A new area is one line here. */
export const API_AREAS: ((api: App, ctx: AppContext) => Promise<void>)[] = [
  authRoutes,
  userRoutes,
  platformRoutes,
  projectRoutes,
  deploymentRoutes,
  envVarRoutes,
  environmentRoutes,
  geoRoutes,
  cronRoutes,
  gitProviderRoutes,
  webhookRoutes,
  previewRoutes,
  apiKeyRoutes,
  settingsRoutes,
  auditRoutes,
  proxyLogRoutes,
  loadBalancerRoutes,
  domainRoutes,
  projectDomainRoutes,
  notificationRoutes,
  jobRoutes,
];
