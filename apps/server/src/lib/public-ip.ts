import os from 'node:os';

const PRIVATE_V4 = [
  /^10\./,
  /^192\.168\./,
  /^172\.(1[6-9]|2\d|3[01])\./,
  /^127\./,
  /^169\.254\./,
  /^100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\./,
];
const isPublicV4 = (address: string) => !PRIVATE_V4.some((re) => re.test(address));

/** The address the world reaches this machine on, when the platform can know it without asking the internet. */
export function detectPublicIp(configured: string | undefined): { ip: string | null; source: string } {
  if (configured) return { ip: configured, source: 'configuration (PUBLIC_IP)' };
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) {
      if (a.family === 'IPv4' && !a.internal && isPublicV4(a.address)) return { ip: a.address, source: 'network interface' };
    }
  }
  return { ip: null, source: 'none: no public address on this machine; set PUBLIC_IP if it is reached through NAT' };
}
