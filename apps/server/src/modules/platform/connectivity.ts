import { randomBytes } from 'node:crypto';
import type { Connectivity, DnsCheck } from '@launchbay/contract';
import type { AppContext } from '../../context';
import { resolveAddresses, tcpReachable } from '../../lib/dns';
import { detectPublicIp } from '../../lib/public-ip';
import { getSettings } from '../settings/service';

/**
 * What /setup/connectivity shows: the public address, whether ports 80 and 443 answer on it (tried
 * from this machine: behind NAT that needs the router to loop back, and says so), and the records
 * the base domain needs.
 */
export async function connectivity(ctx: AppContext): Promise<Connectivity> {
  const settings = await getSettings(ctx);
  const publicIp = detectPublicIp(ctx.config.publicIp);
  const edgePorts = { 80: ctx.edge.port(), 443: ctx.edge.tlsPort() };
  const ports = await Promise.all(
    ([80, 443] as const).map(async (port) => {
      const purpose = port === 80 ? 'HTTP, and HTTP-01 certificate validation' : 'HTTPS';
      const edgePort = edgePorts[port];
      const forward =
        edgePort !== port
          ? ` The edge listens on ${edgePort ?? 'no port'} here: forward ${port} to it, or set ${port === 80 ? 'PROXY_PORT' : 'PROXY_TLS_PORT'}=${port}.`
          : '';
      if (!publicIp.ip) {
        return { port, purpose, edge_port: edgePort, reachable: null, detail: `Not checked: no public IP is known.${forward}` };
      }
      const problem = await tcpReachable(publicIp.ip, port);
      return {
        port,
        purpose,
        edge_port: edgePort,
        reachable: problem === null,
        detail:
          (problem === null
            ? `${publicIp.ip}:${port} answers (tried from this machine).`
            : `${publicIp.ip}:${port}: ${problem}.${settings.access_mode === 'nat' ? ' Behind NAT the router must forward the port (and loop it back for this check).' : ''}`) +
          forward,
      };
    }),
  );
  const value = publicIp.ip ?? "this server's public IP address";
  const base = settings.base_domain;
  return {
    access_mode: settings.access_mode,
    public_ip: publicIp,
    base_domain: base,
    ports,
    dns_records: base
      ? [
          { type: 'A', name: base, value, purpose: 'The platform itself' },
          { type: 'A', name: `*.${base}`, value, purpose: 'Every app and preview address under it' },
        ]
      : [],
  };
}

/** Resolves a name (a wildcard through a random name under it) and says whether it points here. */
export async function checkDns(ctx: AppContext, name: string): Promise<DnsCheck> {
  const resolvedName = name.startsWith('*.') ? `launchbay-check-${randomBytes(4).toString('hex')}${name.slice(1)}` : name;
  const addresses = await resolveAddresses(resolvedName, ctx.config.dnsServers);
  const expected = detectPublicIp(ctx.config.publicIp).ip;
  const ok = addresses.length > 0 && (expected === null || addresses.includes(expected));
  const detail =
    addresses.length === 0
      ? `${resolvedName} does not resolve yet`
      : expected === null
        ? `${resolvedName} resolves to ${addresses.join(', ')} (no public IP is known to compare with)`
        : addresses.includes(expected)
          ? `${resolvedName} points to this server (${expected})`
          : `${resolvedName} points to ${addresses.join(', ')}, not to ${expected}`;
  return { name, resolved_name: resolvedName, addresses, expected, ok, detail };
}
