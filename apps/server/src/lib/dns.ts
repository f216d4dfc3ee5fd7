import dns from 'node:dns';
import net from 'node:net';

/** A resolver on the given servers (host:port; DNS_SERVERS), or the system's when none are given. */
function resolver(servers: string[]): dns.promises.Resolver {
  const r = new dns.promises.Resolver({ timeout: 3000, tries: 2 });
  if (servers.length > 0) r.setServers(servers);
  return r;
}

/** The A and AAAA addresses of a name; empty when it does not resolve. */
export async function resolveAddresses(name: string, servers: string[]): Promise<string[]> {
  const r = resolver(servers);
  const [v4, v6] = await Promise.all([
    r.resolve4(name).catch(() => [] as string[]),
    r.resolve6(name).catch(() => [] as string[]),
  ]);
  return [...v4, ...v6];
}

/** The TXT values of a name; empty when it has none. */
export async function resolveTxt(name: string, servers: string[]): Promise<string[]> {
  try {
    return (await resolver(servers).resolveTxt(name)).map((parts) => parts.join(''));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
    throw error;
  }
}

/** Whether a TCP connection to host:port opens within 3 s: null when it does, else why not, in words. */
export function tcpReachable(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 3000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('no answer within 3 s (a firewall or the router drops it)');
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'ECONNREFUSED' ? 'connection refused (nothing listens there)' : error.message),
    );
  });
}
