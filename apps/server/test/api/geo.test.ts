import { createRequire } from 'node:module';
import path from 'node:path';
import type { GeoLocation } from '@launchbay/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGeoLocator, GEO_PACKAGE, geoLocator } from '../../src/modules/geo/service';
import { type Api, type ApiError, apiClient } from '../helpers/api';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

let platform: TestPlatform;
let api: Api;
let admin: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
});
afterAll(() => platform.close());

const geo = (ip: string, token: string | undefined = admin) => api.call<GeoLocation>('GET', `/geo/${ip}`, { token });

const NO_PLACE = {
  country_code: null,
  country: null,
  region: null,
  city: null,
  latitude: null,
  longitude: null,
  timezone: null,
};

describe('GET /api/geo/{ip}', () => {
  it('opens nothing at start, and nothing for addresses that have no place', async () => {
    expect(geoLocator.opened()).toEqual([]);
    const response = await geo('10.1.2.3');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ip: '10.1.2.3', kind: 'private', ...NO_PLACE, source: expect.any(String) });
    expect(geoLocator.opened()).toEqual([]);
  });

  it('places 8.8.8.8 in Mountain View, US, from DB-IP (with attribution)', async () => {
    const response = await geo('8.8.8.8');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      ip: '8.8.8.8',
      kind: 'public',
      country_code: 'US',
      country: 'United States',
      region: 'California',
      city: 'Mountain View',
      timezone: 'America/Los_Angeles', // from the coordinates: DB-IP Lite has no time zone
    });
    expect(response.body.latitude).toBeCloseTo(37.42, 1);
    expect(response.body.longitude).toBeCloseTo(-122.08, 1);
    expect(response.body.source).toMatch(/^DB-IP City Lite \(CC BY 4\.0\).*db-ip\.com/);
    expect(response.body.source).toContain(GEO_PACKAGE);
    // Only the IPv4 file was read.
    expect(geoLocator.opened()).toEqual([4]);
  });

  it('places a public IPv6 address (Google, 2607:f8b0::/32) in the US', async () => {
    const response = await geo('2607:f8b0:4005:80a::200e');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ kind: 'public', country_code: 'US', country: 'United States' });
    expect(response.body.city).toEqual(expect.any(String));
    expect(geoLocator.opened().sort()).toEqual([4, 6]);
  });

  it('answers an IPv4-mapped IPv6 address as its IPv4 address, written either way', async () => {
    const plain = (await geo('8.8.8.8')).body;
    for (const mapped of ['::ffff:8.8.8.8', '::ffff:808:808']) {
      const response = await geo(mapped);
      expect(response.status, mapped).toBe(200);
      expect(response.body, mapped).toEqual({ ...plain, ip: mapped });
    }
    const privateMapped = await geo('::ffff:192.168.1.1');
    expect(privateMapped.body).toMatchObject({ kind: 'private', ...NO_PLACE });
  });

  it.each([
    ['10.1.2.3', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.1.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['0.0.0.0', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['224.0.0.251', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['::', 'reserved'],
    ['ff02::1', 'reserved'],
  ])('%s is %s, with no place', async (ip, kind) => {
    const response = await geo(ip);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ip, kind, ...NO_PLACE, source: expect.any(String) });
  });

  it('takes an IPv6 address percent-encoded in the path too', async () => {
    const response = await geo(encodeURIComponent('::1'));
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ ip: '::1', kind: 'loopback' });
  });

  it('answers 400 with the field error for something that is not an IP address', async () => {
    for (const bad of ['not-an-ip', '256.1.1.1', '01.2.3.4', '1.2.3', '2001:db8:::1']) {
      const response = await api.call<ApiError>('GET', `/geo/${bad}`, { token: admin });
      expect(response.status, bad).toBe(400);
      expect(response.body.errors, bad).toEqual([{ path: 'params.ip', message: 'Enter an IPv4 or IPv6 address' }]);
      expect(response.body.detail, bad).toBe('params.ip: Enter an IPv4 or IPv6 address');
    }
  });

  it('answers 401 without a session', async () => {
    const response = await api.call<ApiError>('GET', '/geo/8.8.8.8');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ detail: 'Authentication Required' });
  });

  it('lets a reader look an address up', async () => {
    const reader = await api.userWithRole(admin, 'reader');
    const response = await geo('8.8.8.8', reader.token);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ kind: 'public', country_code: 'US', city: 'Mountain View' });
  });

  it('is in the OpenAPI document with its schemas', async () => {
    const doc = await api.call<{ paths: Record<string, Record<string, { tags?: string[]; responses?: object }>> }>(
      'GET',
      '/docs/json',
    );
    const operation = doc.body.paths['/api/geo/{ip}']?.get;
    expect(operation?.tags).toEqual(['geo']);
    expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '503']));
  });
});

describe('the geo database', () => {
  const packageDir = path.dirname(createRequire(import.meta.url).resolve(`${GEO_PACKAGE}/package.json`));

  it('opens once for concurrent lookups', async () => {
    let found = 0;
    const locator = createGeoLocator({
      directory: () => {
        found++;
        return packageDir;
      },
    });
    const answers = await Promise.all(['8.8.8.8', '1.1.1.1', '8.8.4.4'].map((ip) => locator.lookup(ip)));
    expect(answers.map((a) => a.kind)).toEqual(['public', 'public', 'public']);
    expect(found).toBe(1);
    await locator.lookup('9.9.9.9');
    expect(found).toBe(1);
  });

  it('reports a database that cannot be opened as a 503 with a clear detail, and retries on the next lookup', async () => {
    let attempts = 0;
    const locator = createGeoLocator({
      directory: () => (++attempts === 1 ? path.join(packageDir, 'missing-folder') : packageDir),
    });
    const failed = await locator.lookup('8.8.8.8').catch((error: unknown) => error);
    expect(failed).toMatchObject({ statusCode: 503 });
    expect((failed as Error).message).toMatch(
      /^The offline IP location database \(@ip-location-db\/dbip-city-mmdb, dbip-city-ipv4\.mmdb\) could not be opened: .*ENOENT/,
    );
    expect(locator.opened()).toEqual([]);
    // Private addresses still answer: they need no database.
    expect((await locator.lookup('10.0.0.1')).kind).toBe('private');
    const retried = await locator.lookup('8.8.8.8');
    expect(retried).toMatchObject({ kind: 'public', country_code: 'US', city: 'Mountain View' });
    expect(attempts).toBe(2);
  });
});

describe('an idle geo database', () => {
  it('is let go after the idle time and opened again by the next lookup', async () => {
    const locator = createGeoLocator({ idleCloseMs: 100 });
    await locator.lookup('8.8.8.8');
    expect(locator.opened()).toEqual([4]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(locator.opened()).toEqual([]);
    expect((await locator.lookup('8.8.8.8')).city).toBe('Mountain View');
    expect(locator.opened()).toEqual([4]);
  });
});
