import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Agent, RequestInit, Response } from 'undici';

/*
 * The outbound-request guard: every request the platform makes on a user's behalf (notification
 * webhooks and SMTP today; git hosts, S3, monitors and ACME later) goes through here, so a user
 * cannot point the server at its own loopback services, the private network it sits in, or a
 * cloud metadata endpoint.
 *
 * Names are resolved and every address checked, and the connection is made to the checked
 * address (HTTP: a guarded `lookup` inside the socket connect; SMTP and other TCP clients:
 * resolveOutbound() and connect to the address it returns), so a name that answers differently
 * the second time (DNS rebinding) cannot slip through between the check and the connect.
 */

/** Who may reach what: private and loopback targets need a trusted owner (an admin) or the platform setting. */
export type OutboundPolicy = { allowPrivateNetworks: boolean };

export type AddressCategory =
  | 'public'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link_local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved';

export type AddressVerdict = {
  /** The address as judged: an IPv4-mapped IPv6 address is judged (and shown) as its IPv4 form. */
  address: string;
  category: AddressCategory;
  /** Reads after "is": 'a loopback address'. */
  description: string;
  /** public: anyone; private_only: with OutboundPolicy.allowPrivateNetworks; never: nobody. */
  reach: 'public' | 'private_only' | 'never';
};

/** Cloud metadata services outside link-local space: AWS over IPv6, Alibaba Cloud (inside 100.64/10). */
const METADATA_ADDRESSES = ['fd00:ec2::254', '100.100.100.200'].map((a) => ipaddr.parse(a).toNormalizedString());

const DESCRIPTIONS: Record<AddressCategory, string> = {
  public: 'a public address',
  loopback: 'a loopback address',
  private: 'a private network address',
  shared: 'a shared (carrier-grade NAT) address',
  link_local: 'a link-local address',
  metadata: 'a cloud metadata address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
};

const REACH: Record<AddressCategory, AddressVerdict['reach']> = {
  public: 'public',
  loopback: 'private_only',
  private: 'private_only',
  shared: 'private_only',
  link_local: 'never',
  metadata: 'never',
  unspecified: 'never',
  multicast: 'never',
  broadcast: 'never',
  reserved: 'never',
};

function verdict(address: string, category: AddressCategory): AddressVerdict {
  return { address, category, description: DESCRIPTIONS[category], reach: REACH[category] };
}

function categoryOfIPv4(ip: ipaddr.IPv4): AddressCategory {
  // ipaddr.js names more ranges at run time than its types list, so the name is read as a string.
  const range: string = ip.range();
  switch (range) {
    case 'unicast':
    case 'as112':
    case 'amt':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'private':
      return 'private';
    case 'carrierGradeNat':
      return 'shared';
    case 'linkLocal':
      return 'link_local';
    case 'unspecified':
      return 'unspecified';
    case 'multicast':
      return 'multicast';
    case 'broadcast':
      return 'broadcast';
    default:
      return 'reserved'; // unknown to us: refused rather than guessed
  }
}

const ipv4FromLow32 = (ip: ipaddr.IPv6) =>
  new ipaddr.IPv4([ip.parts[6]! >> 8, ip.parts[6]! & 0xff, ip.parts[7]! >> 8, ip.parts[7]! & 0xff]);

/** An IPv6 address that carries an IPv4 one (NAT64, SIIT, 6to4) is judged by the IPv4 it reaches. */
function categoryOfIPv6(ip: ipaddr.IPv6): AddressCategory {
  const range: string = ip.range();
  switch (range) {
    case 'unicast':
      // ::a.b.c.d (the deprecated IPv4-compatible form) is no real destination.
      return ip.parts.slice(0, 6).every((part) => part === 0) ? 'reserved' : 'public';
    case 'amt':
    case 'as112v6':
      return 'public';
    case 'rfc6052':
      // 64:ff9b::/96 is the well-known NAT64 prefix (IPv6-only hosts reach public IPv4 this way);
      // 64:ff9b:1::/48 is for NAT64 inside one network.
      return ip.parts[2] === 0 ? categoryOfIPv4(ipv4FromLow32(ip)) : 'private';
    case 'rfc6145':
      return categoryOfIPv4(ipv4FromLow32(ip));
    case '6to4':
      return categoryOfIPv4(new ipaddr.IPv4([ip.parts[1]! >> 8, ip.parts[1]! & 0xff, ip.parts[2]! >> 8, ip.parts[2]! & 0xff]));
    case 'loopback':
      return 'loopback';
    case 'uniqueLocal':
    case 'deprecatedSiteLocal':
      return 'private';
    case 'linkLocal':
      return 'link_local';
    case 'unspecified':
      return 'unspecified';
    case 'multicast':
      return 'multicast';
    default:
      return 'reserved';
  }
}

/** Classifies one IP address (v4 or v6, with or without a zone); throws on something that is not one. */
export function classifyAddress(address: string): AddressVerdict {
  const ip = ipaddr.process(address.replace(/^\[(.*)\]$/, '$1'));
  const shown = ip.toString();
  if (METADATA_ADDRESSES.includes(ip.toNormalizedString())) return verdict(shown, 'metadata');
  return verdict(shown, ip.kind() === 'ipv4' ? categoryOfIPv4(ip as ipaddr.IPv4) : categoryOfIPv6(ip as ipaddr.IPv6));
}

/** A request refused by the policy: permanent, and its message says why and what would allow it. */
export class OutboundRefusedError extends Error {
  readonly code = 'ERR_OUTBOUND_REFUSED';
  constructor(
    message: string,
    readonly verdict: AddressVerdict,
  ) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

/** The refusal for one address under a policy, or undefined when it may be reached. `host` is the name that led there. */
export function refusalFor(address: string, policy: OutboundPolicy, host?: string): OutboundRefusedError | undefined {
  const judged = classifyAddress(address);
  if (judged.reach === 'public' || (judged.reach === 'private_only' && policy.allowPrivateNetworks)) return undefined;
  const what =
    host && !net.isIP(host.replace(/^\[(.*)\]$/, '$1'))
      ? `${host} resolves to ${judged.address}, ${judged.description}`
      : `${judged.address} is ${judged.description}`;
  const why =
    judged.reach === 'never'
      ? 'the platform never sends requests there'
      : 'only an admin can send to private or loopback addresses, or allow them in Settings';
  return new OutboundRefusedError(`Refused: ${what}; ${why}`, judged);
}

/** The OutboundRefusedError inside an error or its causes (fetch wraps connect errors), if any. */
export function outboundRefusal(error: unknown): OutboundRefusedError | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
    if (current instanceof OutboundRefusedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export type ResolvedAddress = { address: string; family: 4 | 6 };
/** The resolver behind the guard: dns.lookup with all: true (tests hand in their own). */
export type Resolver = (hostname: string, family: 0 | 4 | 6) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = async (hostname, family) =>
  (await dns.promises.lookup(hostname, { all: true, family })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/**
 * Resolves a host (a name or an IP literal) and checks every address it gives; refuses the whole
 * name when any address is refused, so which one a client picks cannot matter. Connect to an
 * address this returns, never to the name again.
 */
export async function resolveOutbound(
  host: string,
  policy: OutboundPolicy,
  resolver: Resolver = systemResolver,
  family: 0 | 4 | 6 = 0,
): Promise<ResolvedAddress[]> {
  const literal = host.replace(/^\[(.*)\]$/, '$1');
  const kind = net.isIP(literal);
  const addresses: ResolvedAddress[] = kind ? [{ address: literal, family: kind === 6 ? 6 : 4 }] : await resolver(host, family);
  if (addresses.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
  for (const { address } of addresses) {
    const refusal = refusalFor(address, policy, host);
    if (refusal) throw refusal;
  }
  return addresses;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
/** The `lookup` net.connect and tls.connect call for a name (never for an IP literal). */
export type GuardedLookup = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void;

/** A `lookup` for net/tls.connect that answers only checked addresses, so the socket connects to what was checked. */
export function guardedLookup(policy: OutboundPolicy, resolver: Resolver = systemResolver): GuardedLookup {
  return (hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    resolveOutbound(hostname, policy, resolver, family).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

const agents = new Map<string, Agent>();
/** undici is loaded with the first outbound request: a platform that sends nothing never pays for it (about 20 MB). */
let undici: Promise<typeof import('undici')> | undefined;

/** One connection pool per policy: a connection opened under a looser policy is never reused under a stricter one. */
function agentFor(policy: OutboundPolicy, resolver: Resolver | undefined, { Agent }: typeof import('undici')): Agent {
  if (resolver) return new Agent({ connect: { lookup: guardedLookup(policy, resolver) } });
  const key = policy.allowPrivateNetworks ? 'private' : 'public';
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(policy) } });
    agents.set(key, agent);
  }
  return agent;
}

/**
 * fetch() through the guard. An IP-literal host is checked here (the socket never looks it up;
 * the URL parser has already turned forms such as http://2130706433/ into 127.0.0.1), a name at
 * connect time. Redirects are not followed: a redirect could lead anywhere.
 * Rejects with an OutboundRefusedError (possibly as the `cause` of fetch's TypeError) when refused.
 */
export async function outboundFetch(
  url: string,
  init: Omit<RequestInit, 'dispatcher' | 'redirect'>,
  policy: OutboundPolicy,
  resolver?: Resolver,
): Promise<Response> {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error(`Only http and https URLs are sent (${parsed.protocol})`);
  const literal = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(literal)) {
    const refusal = refusalFor(literal, policy);
    if (refusal) throw refusal;
  }
  undici ??= import('undici');
  const loaded = await undici;
  const dispatcher = agentFor(policy, resolver, loaded);
  try {
    return await loaded.fetch(parsed, { ...init, redirect: 'manual', dispatcher });
  } finally {
    // A one-off agent (a test's resolver) must not keep sockets open.
    if (resolver) void dispatcher.close().catch(() => undefined);
  }
}
