/**
 * The package manager of a Node app: the `packageManager` field of package.json when it names one,
 * else the lockfile; and the commands that install (frozen to the lockfile when there is one), run a
 * script and run a dependency's binary with it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PackageManager } from '../build-plan';
import type { AppFiles } from './app-files';

export type PackageJson = {
  name?: unknown;
  version?: unknown;
  main?: unknown;
  packageManager?: unknown;
  scripts?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
  optionalDependencies?: Record<string, unknown>;
  workspaces?: unknown;
};

/** An app's package.json, or null when it has none or it is not a JSON object (BOM tolerated). */
export async function readPackageJson(appDir: string): Promise<PackageJson | null> {
  try {
    const parsed: unknown = JSON.parse(
      (await fs.promises.readFile(path.join(appDir, 'package.json'), 'utf8')).replace(/^\uFEFF/, ''),
    );
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as PackageJson) : null;
  } catch {
    return null;
  }
}

export type PackageManagerChoice = {
  name: PackageManager;
  /** The lockfile of that package manager, when the app has one. */
  lockfile: string | null;
  /** Yarn 2 or later ("berry"), whose frozen install is `--immutable`. */
  yarnBerry: boolean;
  warnings: string[];
};

/** In the order they are tried when package.json names no package manager. */
const LOCKFILES: readonly { file: string; name: PackageManager }[] = [
  { file: 'package-lock.json', name: 'npm' },
  { file: 'npm-shrinkwrap.json', name: 'npm' },
  { file: 'pnpm-lock.yaml', name: 'pnpm' },
  { file: 'yarn.lock', name: 'yarn' },
  { file: 'bun.lock', name: 'bun' },
  { file: 'bun.lockb', name: 'bun' },
];

export async function detectPackageManager(files: AppFiles, pkg: PackageJson): Promise<PackageManagerChoice> {
  const warnings: string[] = [];
  const found: { file: string; name: PackageManager }[] = [];
  for (const lockfile of LOCKFILES) if (await files.isFile(lockfile.file)) found.push(lockfile);

  const declared = typeof pkg.packageManager === 'string' ? /^(npm|pnpm|yarn|bun)@(\d+)/.exec(pkg.packageManager) : null;
  let name: PackageManager;
  if (declared) {
    name = declared[1] as PackageManager;
    if (found.length > 0 && !found.some((l) => l.name === name)) {
      warnings.push(`package.json names ${name} but the lockfile is ${found[0]?.file}: installing without a lockfile`);
    }
  } else {
    name = found[0]?.name ?? 'npm';
  }
  const lockfile = found.find((l) => l.name === name)?.file ?? null;
  const others = [...new Set(found.filter((l) => l.name !== name).map((l) => l.file))];
  if (lockfile && others.length > 0) {
    warnings.push(`Several lockfiles: using ${lockfile} (${name}), ignoring ${others.join(', ')}`);
  }

  let yarnBerry = false;
  if (name === 'yarn') {
    if (declared) yarnBerry = Number(declared[2]) >= 2;
    else if (await files.isFile('.yarnrc.yml')) yarnBerry = true;
    else if (lockfile) yarnBerry = (await files.head(lockfile, 1024))?.includes('__metadata:') ?? false;
  }
  return { name, lockfile, yarnBerry, warnings };
}

/** `npm ci` and the frozen installs of the others when there is a lockfile; a plain install otherwise. */
export function installCommand({ name, lockfile, yarnBerry }: PackageManagerChoice): string {
  if (!lockfile) return `${name} install`;
  switch (name) {
    case 'npm':
      return 'npm ci';
    case 'yarn':
      return yarnBerry ? 'yarn install --immutable' : 'yarn install --frozen-lockfile';
    default:
      return `${name} install --frozen-lockfile`;
  }
}

export const runScript = (pm: PackageManager, script: string) => `${pm} run ${script}`;

/** Runs a binary of the app's dependencies (`next build`), without a package.json script. */
export function execBinary(pm: PackageManager, command: string): string {
  switch (pm) {
    case 'npm':
      return `npx ${command}`;
    case 'pnpm':
      return `pnpm exec ${command}`;
    case 'yarn':
      return `yarn ${command}`;
    case 'bun':
      return `bunx ${command}`;
  }
}
