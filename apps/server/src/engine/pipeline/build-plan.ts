/**
 * How an app is installed, built and run: resolved from `launchbay.json`, then a Procfile, then
 * framework detection (first match wins), and overridden field by field by the project's settings
 * unless `launchbay.json` sets that field.
 */
import type { ProcessSpec } from '../runtime/driver';

export type PackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun';

/**
 * `detected`: the defaults of the preset (detected, or chosen in the settings); `settings`: the
 * project's overrides.
 */
export type BuildPlanSource = 'launchbay.json' | 'Procfile' | 'detected' | 'settings';

/** A scheduled HTTP call to the app (`launchbay.json` `crons`), e.g. `{ path: '/api/cleanup', schedule: '0 3 * * *' }`. */
export type CronSpec = { path: string; schedule: string };

export type BuildPlan = {
  /** The framework or preset slug, e.g. `vite`, `nextjs`, `express`, `static`, `node`. */
  preset: string;
  /** Human name of the preset, e.g. `Vite`, `Next.js`. */
  presetName: string;
  packageManager: PackageManager | null;
  installCommand: string | null;
  buildCommand: string | null;
  /**
   * A static site (output served by the edge from disk, no process) when `outputDirectory` is set
   * and no process is; a server otherwise.
   */
  kind: 'static' | 'server';
  /** Relative to the root directory; the folder the edge serves for a static site. */
  outputDirectory: string | null;
  /** Processes for a server; `web` gets traffic. Empty for a static site. */
  processes: ProcessSpec[];
  /** The port the app listens on when it ignores PORT (rare); null means it honours PORT. */
  port: number | null;
  healthCheckPath: string;
  /** Env var names the app needs; a deploy without them fails before building. */
  requiredEnv: string[];
  /**
   * Folders kept between builds beside the package manager's store, e.g. `.next/cache`; relative to
   * the root directory, restored after the install (which may empty `node_modules`) and before the build.
   */
  cacheDirectories: string[];
  /** Static sites with client-side routing answer unknown paths with index.html. */
  spaFallback: boolean;
  /** From `launchbay.json`; run by the scheduler against the `web` process. */
  crons: CronSpec[];
  /** What the build log should say before building: a setting that launchbay.json overrides, an adapter that cannot run here... */
  warnings: string[];
  /**
   * Where each field came from, so the console can say when launchbay.json wins (the `startCommand`
   * setting is the `web` entry of `processes`).
   */
  sources: Partial<Record<keyof Omit<BuildPlan, 'sources' | 'warnings'>, BuildPlanSource>>;
};

/**
 * What the user set in the console (or the API) for a project; null (or blank) fields are not
 * overridden. `preset` replaces detection with that preset's defaults; `startCommand` is the `web` process.
 */
export type BuildOverrides = {
  preset?: string | null;
  installCommand?: string | null;
  buildCommand?: string | null;
  startCommand?: string | null;
  outputDirectory?: string | null;
  port?: number | null;
  healthCheckPath?: string | null;
};
