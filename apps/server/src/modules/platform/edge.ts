import type { EdgeStatus } from '@launchbay/contract';
import { askEdgeIdentity } from '@launchbay/edge-protocol';
import type { AppContext } from '../../context';
import { nginxVersion } from '../../engine/edge/nginx';

/** nginx is looked for at most once a minute (the settings page asks on every visit). */
const NGINX_CHECK_MS = 60_000;
const checked = new WeakMap<object, { at: number; version: string | null }>();

async function installedNginx(config: AppContext['config']): Promise<string | null> {
  const last = checked.get(config);
  if (last && Date.now() - last.at < NGINX_CHECK_MS) return last.version;
  const version = await nginxVersion(config.nginxBinary);
  checked.set(config, { at: Date.now(), version });
  return version;
}

/** The edge as it runs: its driver, ports, the table it serves and nginx's last refusal, asked of the edge itself. */
export async function edgeStatus(ctx: Pick<AppContext, 'edge' | 'config'>): Promise<EdgeStatus> {
  const current = ctx.edge.current();
  const [identity, version] = await Promise.all([
    current ? askEdgeIdentity(current) : Promise.resolve(null),
    installedNginx(ctx.config),
  ]);
  return {
    driver: current ? (current.driver ?? 'embedded') : null,
    pid: current?.pid ?? null,
    port: current?.port ?? null,
    tls_port: current?.tlsPort ?? null,
    route_table_version: identity?.routeTableVersion ?? null,
    error: identity?.driverError ?? null,
    nginx: { installed: version !== null, version },
  };
}
