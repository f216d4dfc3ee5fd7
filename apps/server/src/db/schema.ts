// The drizzle schema index: one schema file per module, gathered here for drizzle-kit and queries.
export * from '../engine/edge/schema';
export * from '../jobs/schema';
export * from '../modules/api-keys/schema';
export * from '../modules/audit/schema';
export * from '../modules/auth/schema';
export * from '../modules/crons/schema';
export * from '../modules/deployments/schema';
export * from '../modules/env-vars/schema';
export * from '../modules/environments/schema';
export * from '../modules/git-providers/schema';
export * from '../modules/load-balancer/schema';
export * from '../modules/notifications/schema';
export * from '../modules/projects/schema';
export * from '../modules/proxy-logs/schema';
export * from '../modules/settings/schema';
export * from '../modules/users/schema';
export * from '../modules/webhooks/schema';
