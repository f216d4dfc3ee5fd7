import type { EdgeDriver } from '@launchbay/edge-protocol';
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../context';
import { followEdgeDriverSetting, updateSettings } from './service';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The settings table in memory (the two query shapes the service uses) and an edge whose switch
 * takes a while, as a real one does (the old edge stops, the new one starts and listens).
 */
function fakeContext(stored: EdgeDriver) {
  const rows = new Map<string, unknown>([['edge_driver', stored]]);
  const switches: EdgeDriver[] = [];
  let driver: EdgeDriver = stored;
  let serving: EdgeDriver = stored;
  const db = {
    select: () => ({ from: async () => [...rows].map(([key, value]) => ({ key, value })) }),
    transaction: async (work: (tx: unknown) => Promise<void>) =>
      work({
        insert: () => ({
          values: (row: { key: string; value: unknown }) => ({
            onConflictDoUpdate: async () => {
              rows.set(row.key, row.value);
            },
          }),
        }),
      }),
  };
  const edge = {
    port: () => 8080,
    tlsPort: () => null,
    current: () => ({ driver: serving }),
    driver: () => driver,
    async setDriver(next: EdgeDriver) {
      switches.push(next);
      driver = next; // the supervisor says the new driver at once, and serves with it once started
      await sleep(100);
      serving = next;
      return { driver: next };
    },
  };
  // Only what the settings service touches: the database's two query shapes, the edge and the configuration.
  const ctx = { db, edge, config: { publicUrl: null, accessMode: 'local', nginxBinary: 'nginx' } } as unknown as Pick<
    AppContext,
    'db' | 'config' | 'edge'
  >;
  return { ctx, rows, switches, serving: () => serving };
}

describe('the edge driver setting', () => {
  it('is not switched back by the follower reading the old value while a request switches it', async () => {
    const { ctx, rows, switches, serving } = fakeContext('nginx');
    const saving = updateSettings(ctx, { edge_driver: 'embedded' }, 1);
    await sleep(20);
    // The follower looks while the switch is under way, before the request stores the new value.
    const follower = followEdgeDriverSetting(ctx, () => undefined);
    await saving;
    await follower.ready;
    follower.stop();
    expect(rows.get('edge_driver')).toBe('embedded');
    expect(switches).toEqual(['embedded']);
    expect(serving()).toBe('embedded');
  });

  it('follows a change stored by another node', async () => {
    const { ctx, rows, switches, serving } = fakeContext('embedded');
    rows.set('edge_driver', 'nginx'); // another node switched, and stored it
    const follower = followEdgeDriverSetting(ctx, () => undefined);
    await follower.ready;
    follower.stop();
    expect(switches).toEqual(['nginx']);
    expect(serving()).toBe('nginx');
  });
});
