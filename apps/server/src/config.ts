import fs from 'node:fs';
import path from 'node:path';
import { accessModeSchema } from '@launchbay/contract';
import { z } from 'zod';

/** Everything the platform reads from its environment, validated once at start. */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  // The edge proxy in front of deployed apps (its own process); 0 picks a free port (tests).
  PROXY_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  PROXY_HOST: z.string().optional(),
  // The edge's HTTPS port (certificates by SNI); 0 picks a free port (tests).
  PROXY_TLS_PORT: z.coerce.number().int().min(0).max(65535).default(8443),
  // One proxy-log row per request (on by default); off for hosts that must not record client addresses.
  PROXY_LOG: z.enum(['on', 'off']).default('on'),
  // The processes the embedded edge may grow to under a load that saturates one (default: one per CPU, at most 8).
  EDGE_PROCESSES: z.coerce.number().int().min(1).max(64).optional(),
  // How long the load must be gone before an extra edge process retires.
  EDGE_SCALE_DOWN_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  // The event-loop utilization at which an edge process counts as saturated (a worker starts after 2 s of it).
  EDGE_SCALE_UP_AT: z.coerce.number().min(0.1).max(1).optional(),
  // A PEM file of a private ACME CA's certificate to trust besides the system's (Pebble in tests).
  ACME_CA_FILE: z.string().optional(),
  NGINX_BINARY: z.string().min(1).optional(),
  // The port a CA sends HTTP-01 validation to (80 for every public CA; another for a test CA).
  ACME_HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(80),
  // DNS servers (host:port, comma-separated) for checking DNS-01 TXT records and domain DNS; default: the system's.
  DNS_SERVERS: z.string().optional(),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must start with postgres://')
    .optional(),
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().min(8, 'ADMIN_PASSWORD must be at least 8 characters').optional(),
  ACCESS_MODE: accessModeSchema.default('local'),
  PUBLIC_URL: z.url().optional(),
  PUBLIC_IP: z.union([z.ipv4(), z.ipv6()]).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SESSION_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 365)
    .default(24 * 7),
  CONSOLE_DIR: z.string().optional(),
  // Notifications: repeats of one alert within this window fold into one message; failed sends
  // retry after base, 2x base, 4x base... ms; a claimed send whose node died is retried after the lease.
  NOTIFICATION_BATCH_WINDOW_SECONDS: z.coerce.number().min(0.1).max(86_400).default(60),
  NOTIFICATION_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(1000),
  NOTIFICATION_LEASE_SECONDS: z.coerce.number().min(1).max(3600).default(120),
  // Jobs: a claim lasts this long unless its node renews it (it does, while the job runs); each
  // node looks for due jobs and schedule ticks this often.
  JOB_LEASE_SECONDS: z.coerce.number().min(1).max(3600).default(60),
  JOB_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(500),
  // An idle node polls less and less often, up to this (work enqueued on the node, schedules and
  // delayed jobs wake it at once): an idle platform holds no database connection most of the time.
  JOB_IDLE_POLL_MS: z.coerce.number().int().min(50).max(600_000).default(20_000),
  // A build's install and build commands each get this long, then they are killed and the deployment fails with the reason.
  BUILD_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  // How apps run: `process` (children of the platform, in bubblewrap) or `docker` (containers on a
  // Docker engine, or Podman's Docker-compatible service, at DOCKER_HOST from DOCKER_IMAGE).
  RUNTIME_DRIVER: z.enum(['process', 'docker']).default('process'),
  DOCKER_HOST: z
    .string()
    .regex(/^(unix:\/\/\/|tcp:\/\/|\/)/, 'DOCKER_HOST must be unix:///path or tcp://host:port')
    .optional(),
  DOCKER_IMAGE: z.string().min(1).optional(),
});

export type Config = {
  port: number;
  host: string;
  proxyPort: number;
  proxyHost: string;
  proxyTlsPort: number;
  /** Whether the edge writes a proxy-log row per request (PROXY_LOG=off: it does not). */
  proxyLog: boolean;
  /** EDGE_PROCESSES: the embedded edge's processes at most (undefined: the edge's default, one per CPU). */
  edgeProcesses: number | undefined;
  edgeScaleDownSeconds: number;
  /** EDGE_SCALE_UP_AT (undefined: the edge's default, 0.8). */
  edgeScaleUpAt: number | undefined;
  acmeCaFile: string | undefined;
  /** NGINX_BINARY: the nginx program of the nginx edge driver (`nginx` on the PATH unless set). */
  nginxBinary: string;
  acmeHttpPort: number;
  dnsServers: string[];
  dataDir: string;
  databaseUrl: string | undefined;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  accessMode: z.infer<typeof accessModeSchema>;
  publicUrl: string | undefined;
  publicIp: string | undefined;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  sessionTtlMs: number;
  consoleDir: string | undefined;
  notificationBatchWindowMs: number;
  notificationRetryBaseMs: number;
  notificationLeaseMs: number;
  jobLeaseMs: number;
  jobPollMs: number;
  jobIdlePollMs: number;
  /** BUILD_TIMEOUT_SECONDS: the time limit of each install and build command. */
  buildTimeoutSeconds: number;
  runtimeDriver: 'process' | 'docker';
  dockerHost: string | undefined;
  /** The image apps run in under the docker driver: Node.js of the platform's own major line by default. */
  dockerImage: string;
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    proxyPort: e.PROXY_PORT,
    proxyHost: e.PROXY_HOST ?? e.HOST,
    proxyTlsPort: e.PROXY_TLS_PORT,
    proxyLog: e.PROXY_LOG === 'on',
    edgeProcesses: e.EDGE_PROCESSES,
    edgeScaleDownSeconds: e.EDGE_SCALE_DOWN_SECONDS,
    edgeScaleUpAt: e.EDGE_SCALE_UP_AT,
    acmeCaFile: e.ACME_CA_FILE,
    nginxBinary: e.NGINX_BINARY ?? findNginx(),
    acmeHttpPort: e.ACME_HTTP_PORT,
    dnsServers: (e.DNS_SERVERS ?? '')
      .split(',')
      .map((server) => server.trim())
      .filter(Boolean),
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    adminEmail: e.ADMIN_EMAIL?.toLowerCase(),
    adminPassword: e.ADMIN_PASSWORD,
    accessMode: e.ACCESS_MODE,
    publicUrl: e.PUBLIC_URL,
    publicIp: e.PUBLIC_IP,
    logLevel: e.LOG_LEVEL,
    sessionTtlMs: e.SESSION_TTL_HOURS * 3600_000,
    consoleDir: e.CONSOLE_DIR,
    notificationBatchWindowMs: Math.round(e.NOTIFICATION_BATCH_WINDOW_SECONDS * 1000),
    notificationRetryBaseMs: e.NOTIFICATION_RETRY_BASE_MS,
    notificationLeaseMs: Math.round(e.NOTIFICATION_LEASE_SECONDS * 1000),
    jobLeaseMs: Math.round(e.JOB_LEASE_SECONDS * 1000),
    jobPollMs: e.JOB_POLL_MS,
    jobIdlePollMs: Math.max(e.JOB_POLL_MS, e.JOB_IDLE_POLL_MS),
    buildTimeoutSeconds: e.BUILD_TIMEOUT_SECONDS,
    runtimeDriver: e.RUNTIME_DRIVER,
    dockerHost: e.DOCKER_HOST,
    dockerImage: e.DOCKER_IMAGE ?? `node:${process.versions.node.split('.')[0]}-bookworm-slim`,
  };
}

/** `nginx` on the PATH, else Debian's /usr/sbin/nginx (a user's PATH often leaves /usr/sbin out). */
function findNginx(): string {
  const onPath = (process.env.PATH ?? '').split(':').some((dir) => dir && fs.existsSync(path.join(dir, 'nginx')));
  if (!onPath && fs.existsSync('/usr/sbin/nginx')) return '/usr/sbin/nginx';
  return 'nginx';
}
