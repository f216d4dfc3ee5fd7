import { PLATFORM_SETTINGS_DEFAULTS, type PlatformSettings, platformSettingsSchema } from '@launchbay/contract';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { nginxVersion } from '../../engine/edge/nginx';
import { badRequest, validationError } from '../../lib/errors';
import { everyWithPhase } from '../../lib/time';
import { settings } from './schema';

/** The value of every setting nobody has changed yet; external_url and access_mode start from the configuration. */
export function defaultSettings(ctx: Pick<AppContext, 'config'>): PlatformSettings {
  return {
    ...PLATFORM_SETTINGS_DEFAULTS,
    external_url: ctx.config.publicUrl ?? null,
    access_mode: ctx.config.accessMode,
  };
}

/**
 * Settings are read on hot paths (access-info, retention sweeps, ACME), so they are cached for a
 * few seconds; a change on this node applies at once, on other nodes within that bound.
 */
const CACHE_MS = 5_000;
const cache = new WeakMap<object, { value: PlatformSettings; at: number }>();
/** The last settings read on this node, kept past the cache time for synchronous readers. */
const lastKnown = new WeakMap<object, PlatformSettings>();

/**
 * The access mode as last read, for code that cannot wait for a query (the proxy-trust check runs
 * on every request). Reads refresh it; an update on this node applies at once.
 */
export function accessModeNow(ctx: Pick<AppContext, 'db' | 'config'>): PlatformSettings['access_mode'] {
  return lastKnown.get(ctx.db)?.access_mode ?? ctx.config.accessMode;
}

export async function getSettings(ctx: Pick<AppContext, 'db' | 'config'>): Promise<PlatformSettings> {
  const hit = cache.get(ctx.db);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.value;
  const rows = await ctx.db.select().from(settings);
  const merged: Record<string, unknown> = { ...defaultSettings(ctx) };
  for (const row of rows) if (row.key in merged) merged[row.key] = row.value;
  // A stored value that no longer validates (an older version wrote it) falls back to the default.
  const parsed = platformSettingsSchema.safeParse(merged);
  const value = parsed.success ? parsed.data : defaultSettings(ctx);
  cache.set(ctx.db, { value, at: Date.now() });
  lastKnown.set(ctx.db, value);
  return value;
}

/**
 * Puts a new edge driver to work before the setting says so: nginx must be installed, and the edge
 * must start with it (it checks its configuration with `nginx -t` and listens). When it cannot,
 * the previous driver serves again and the setting stays as it was.
 */
async function switchEdgeDriver(ctx: Pick<AppContext, 'config' | 'edge'>, driver: PlatformSettings['edge_driver']) {
  if (driver === ctx.edge.driver() && ctx.edge.current()?.driver === driver) return;
  if (driver === 'nginx' && !(await nginxVersion(ctx.config.nginxBinary))) {
    throw validationError([
      { path: 'edge_driver', message: `nginx is not installed on this machine (${ctx.config.nginxBinary} was not found)` },
    ]);
  }
  try {
    await ctx.edge.setDriver(driver);
  } catch (error) {
    throw badRequest(
      `The edge could not start with the ${driver} driver; the previous one serves again: ${(error as Error).message}`,
    );
  }
}

/**
 * One edge-driver change at a time on this node, per edge: a request's switch and store, or the
 * follower's read and switch. Without it the follower could read the setting while a request
 * switches (the request stores the new value only once the edge serves with it), see the old value
 * as a change made elsewhere, and switch the edge back when the request is done.
 */
const edgeDriverLocks = new WeakMap<object, Promise<unknown>>();

function withEdgeDriverLock<T>(edge: object, work: () => Promise<T>): Promise<T> {
  const run = (edgeDriverLocks.get(edge) ?? Promise.resolve()).then(work, work);
  edgeDriverLocks.set(
    edge,
    run.catch(() => undefined),
  );
  return run;
}

export async function updateSettings(
  ctx: Pick<AppContext, 'db' | 'config' | 'edge'>,
  patch: Partial<PlatformSettings>,
  userId: number | null,
): Promise<PlatformSettings> {
  const { edge_driver: driver } = patch;
  // The edge switches first: a switch that fails leaves the settings as they were.
  if (driver) {
    await withEdgeDriverLock(ctx.edge, async () => {
      await switchEdgeDriver(ctx, driver);
      await storeSettings(ctx, patch, userId);
    });
  } else {
    await storeSettings(ctx, patch, userId);
  }
  return getSettings(ctx);
}

async function storeSettings(
  ctx: Pick<AppContext, 'db'>,
  patch: Partial<PlatformSettings>,
  userId: number | null,
): Promise<void> {
  const entries = Object.entries(patch).filter(([, value]) => value !== undefined);
  await ctx.db.transaction(async (tx) => {
    for (const [key, value] of entries) {
      await tx
        .insert(settings)
        // A cleared setting is stored as JSON null (the column is NOT NULL): a missing row would mean the default.
        .values({ key, value: value === null ? sql`'null'::jsonb` : (value as never), updatedBy: userId })
        .onConflictDoUpdate({
          target: settings.key,
          set: { value: sql`excluded.value`, updatedAt: sql`now()`, updatedBy: userId },
        });
    }
  });
  cache.delete(ctx.db);
}

/** How often a node looks whether another node changed the edge driver setting. */
const EDGE_DRIVER_FOLLOW_MS = 10_000;

/**
 * Keeps this node's edge on the `edge_driver` setting: at start (DATA_DIR/edge/driver only lets the
 * edge start before the database is up) and when the setting changes, on whichever node it was
 * changed (the node that took the request switched already, so there it is a no-op). Only a change
 * of the setting is followed, so a switch under way on this node is never undone by a stale read.
 */
export function followEdgeDriverSetting(
  ctx: Pick<AppContext, 'db' | 'config' | 'edge'>,
  log: (message: string) => void,
): { ready: Promise<void>; stop(): void } {
  let seen: PlatformSettings['edge_driver'] | null = null;
  let busy = false;
  const follow = async () => {
    if (busy) return;
    busy = true;
    try {
      await withEdgeDriverLock(ctx.edge, async () => {
        const wanted = (await getSettings(ctx)).edge_driver;
        if (wanted === seen) return;
        seen = wanted;
        if (ctx.edge.driver() === wanted) return;
        await ctx.edge.setDriver(wanted);
      });
    } catch (error) {
      log(`The edge could not follow the edge driver setting: ${(error as Error).message}`);
    } finally {
      busy = false;
    }
  };
  const timer = everyWithPhase(EDGE_DRIVER_FOLLOW_MS, EDGE_DRIVER_FOLLOW_MS, () => void follow());
  return { ready: follow(), stop: () => timer.stop() };
}
