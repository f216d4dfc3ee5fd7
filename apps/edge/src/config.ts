import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { EDGE_INSTANCE_ENV, type EdgeDriver } from '@launchbay/edge-protocol';

/** What the control plane hands the edge when it spawns it (environment variables). */
export type EdgeConfig = {
  dataDir: string;
  host: string;
  /** 0: any free port (tests, several platforms on one machine); the chosen one goes into the state file. */
  port: number;
  /** With port 0: the port an earlier edge of this folder used, tried first so a restart keeps the address. */
  preferredPort: number | null;
  /** HTTPS (SNI) port; 0: any free one. */
  tlsPort: number;
  preferredTlsPort: number | null;
  instanceId: string;
  /** PROXY_LOG=off: no proxy-log rows. */
  proxyLog: boolean;
  /** EDGE_DRIVER: who serves the traffic (embedded unless `nginx`). */
  driver: EdgeDriver;
  /** NGINX_BINARY: the nginx program for the nginx driver (`nginx` on the PATH). */
  nginxBinary: string;
  /**
   * EDGE_PROCESSES: how many processes the embedded edge may grow to under a load that saturates one
   * (workers/pool.ts); 1 keeps it to one. Default: one per CPU, at most 8.
   */
  maxProcesses: number;
  /** EDGE_SCALE_DOWN_SECONDS: how long the load must be gone before a worker retires (default 300). */
  scaleDownSeconds: number;
  /**
   * EDGE_SCALE_UP_AT: the event-loop utilization (0.1 to 1) at which a process counts as saturated
   * (default 0.8). Lower starts workers at lighter loads (tests use it on a machine shared with others).
   */
  scaleUpAt: number;
};

function countFrom(value: string | undefined, name: string, min: number, max: number): number | null {
  if (value === undefined || value === '') return null;
  const count = Number(value);
  if (!Number.isInteger(count) || count < min || count > max)
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  return count;
}

function portFrom(value: string | undefined, name: string): number | null {
  if (value === undefined || value === '') return null;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`${name} must be a port number (0-65535), got "${value}"`);
  return port;
}

function driverFrom(value: string | undefined): EdgeDriver {
  if (!value || value === 'embedded') return 'embedded';
  if (value === 'nginx') return 'nginx';
  throw new Error(`EDGE_DRIVER must be embedded or nginx, got "${value}"`);
}

function utilizationFrom(value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  const share = Number(value);
  if (!Number.isFinite(share) || share < 0.1 || share > 1)
    throw new Error(`EDGE_SCALE_UP_AT must be an event-loop utilization from 0.1 to 1, got "${value}"`);
  return share;
}

export function loadEdgeConfig(env: NodeJS.ProcessEnv = process.env): EdgeConfig {
  if (!env.DATA_DIR) throw new Error('DATA_DIR is required');
  return {
    dataDir: path.resolve(env.DATA_DIR),
    host: env.PROXY_HOST || '0.0.0.0',
    port: portFrom(env.PROXY_PORT, 'PROXY_PORT') ?? 8080,
    preferredPort: portFrom(env.LAUNCHBAY_EDGE_PREFERRED_PORT, 'LAUNCHBAY_EDGE_PREFERRED_PORT') || null,
    tlsPort: portFrom(env.PROXY_TLS_PORT, 'PROXY_TLS_PORT') ?? 8443,
    preferredTlsPort: portFrom(env.LAUNCHBAY_EDGE_PREFERRED_TLS_PORT, 'LAUNCHBAY_EDGE_PREFERRED_TLS_PORT') || null,
    instanceId: env[EDGE_INSTANCE_ENV] || randomBytes(12).toString('hex'),
    proxyLog: env.PROXY_LOG !== 'off',
    driver: driverFrom(env.EDGE_DRIVER),
    nginxBinary: env.NGINX_BINARY || 'nginx',
    maxProcesses: countFrom(env.EDGE_PROCESSES, 'EDGE_PROCESSES', 1, 64) ?? Math.min(8, os.availableParallelism()),
    scaleDownSeconds: countFrom(env.EDGE_SCALE_DOWN_SECONDS, 'EDGE_SCALE_DOWN_SECONDS', 1, 86_400) ?? 300,
    scaleUpAt: utilizationFrom(env.EDGE_SCALE_UP_AT) ?? 0.8,
  };
}
