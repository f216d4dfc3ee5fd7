/**
 * Framework presets: detection and default commands from `@vercel/frameworks` (detectors, build
 * command, output folder, cache pattern of ~75 frameworks), and what that data lacks for running an
 * app on our own machines rather than on Vercel's: how each server starts (`node
 * .next/standalone/server.js`, `node .output/server/index.mjs`, `node build`...), whether an Astro,
 * SvelteKit or React Router app builds a server or a static site, which static sites route on the
 * client. Frameworks that need another toolchain (Hugo, Jekyll, Python...) or only run on Vercel are
 * left out.
 */
import path from 'node:path';
import type { Framework, FrameworkDetectionItem } from '@vercel/frameworks';
import type { PackageManager } from '../build-plan';
import type { AppFiles } from './app-files';
import { execBinary, type PackageJson, runScript } from './package-manager';

/** A preset as `GET /api/presets` lists it: its default commands, for the console's placeholders. */
export type Preset = {
  slug: string;
  name: string;
  /** `static`: the edge serves `outputDirectory`; `server`: `startCommand` runs as the `web` process. */
  kind: 'static' | 'server';
  /** Null: chosen from the lockfile (`npm ci`, `pnpm install --frozen-lockfile`...). */
  installCommand: string | null;
  /** Run as `<package manager> run build` when package.json has a build script. */
  buildCommand: string | null;
  startCommand: string | null;
  outputDirectory: string | null;
  website: string | null;
};

/** What a preset makes of one app. */
export type PresetPlan = {
  buildCommand: string | null;
  outputDirectory: string | null;
  /** The `web` command; null for a static site. */
  start: string | null;
  spaFallback: boolean;
  cacheDirectories: string[];
  warnings: string[];
};

/** An app's root directory as the presets see it. */
export class App {
  constructor(
    readonly files: AppFiles,
    readonly pkg: PackageJson | null,
    readonly pm: PackageManager | null,
  ) {}

  script(name: string): string | null {
    const script = this.pkg?.scripts?.[name];
    return typeof script === 'string' && script.trim() !== '' ? script : null;
  }

  hasScript(name: string): boolean {
    return this.script(name) !== null;
  }

  run(script: string): string {
    return runScript(this.pm ?? 'npm', script);
  }

  exec(command: string): string {
    return execBinary(this.pm ?? 'npm', command);
  }

  /** The text of `<base>.js` (or .mjs, .ts...), '' when there is none. */
  async config(base: string): Promise<string> {
    const file = await this.files.firstFile(['js', 'mjs', 'ts', 'mts', 'cjs', 'cts'].map((ext) => `${base}.${ext}`));
    return (file && (await this.files.read(file))) ?? '';
  }
}

type Rule = {
  kind: 'static' | 'server';
  /** The start command the presets list shows. */
  start?: string;
  /** The output folder the presets list shows, when @vercel/frameworks has none or another. */
  output?: string | null;
  spaFallback?: boolean;
  /** Real build caches (not build output), when they differ from @vercel/frameworks' cachePattern. */
  cache?: string[];
  plan?: (app: App, base: PresetPlan) => Promise<Partial<PresetPlan>> | Partial<PresetPlan>;
};

const NEXT_STANDALONE_ASSETS =
  'cp -R .next/static .next/standalone/.next/static && if [ -d public ]; then cp -R public .next/standalone/public; fi';
const NITRO_SERVER = 'node .output/server/index.mjs';

/** A folder relative to the root directory, normalized (`./dist/` is `dist`); null when it leaves it. */
export function folder(value: string | undefined): string | null {
  if (!value) return null;
  const normalized = path.posix.normalize(value).replace(/\/+$/, '');
  if (normalized === '' || normalized.startsWith('/') || normalized === '..' || normalized.startsWith('../')) return null;
  return normalized;
}

const stringOption = (config: string, name: string) => new RegExp(`\\b${name}\\s*:\\s*['"\`]([^'"\`]+)['"\`]`).exec(config)?.[1];

/** A Node server: the `start` script, else `main`, else server.js or index.js. */
async function nodeStart(app: App): Promise<string | null> {
  if (app.hasScript('start')) return app.run('start');
  const main = typeof app.pkg?.main === 'string' ? folder(app.pkg.main) : null;
  if (main && /^[\w./@-]+$/.test(main) && (app.hasScript('build') || (await app.files.isFile(main)))) return `node ${main}`;
  const entry = await app.files.firstFile(['server.js', 'server.mjs', 'index.js', 'index.mjs']);
  return entry ? `node ${entry}` : null;
}

const nodeServer: Rule = { kind: 'server', start: 'npm run start', plan: async (app) => ({ start: await nodeStart(app) }) };

/** What @vercel/frameworks lacks for the frameworks we run, by its slug. */
const RULES: Record<string, Rule> = {
  nextjs: {
    kind: 'server',
    start: 'next start',
    output: null,
    cache: ['.next/cache'],
    plan: async (app, base) => {
      const output = stringOption(await app.config('next.config'), 'output');
      if (output === 'export') return { outputDirectory: 'out', start: null };
      if (output === 'standalone') {
        return {
          buildCommand: base.buildCommand && `${base.buildCommand} && ${NEXT_STANDALONE_ASSETS}`,
          start: 'node .next/standalone/server.js',
        };
      }
      return { start: app.hasScript('start') ? app.run('start') : app.exec('next start') };
    },
  },
  nuxtjs: {
    kind: 'server',
    start: NITRO_SERVER,
    output: null,
    cache: [],
    plan: (app) =>
      /\bnux[it] generate\b/.test(app.script('build') ?? '')
        ? { outputDirectory: '.output/public', start: null }
        : { start: NITRO_SERVER },
  },
  nitro: { kind: 'server', start: NITRO_SERVER, output: null, plan: () => ({ start: NITRO_SERVER }) },
  'solidstart-1': { kind: 'server', start: NITRO_SERVER, output: null, plan: () => ({ start: NITRO_SERVER }) },
  astro: {
    kind: 'static',
    cache: ['node_modules/.astro'],
    plan: async (app) => {
      const config = await app.config('astro.config');
      if (config.includes('@astrojs/node')) return { start: 'node dist/server/entry.mjs', outputDirectory: null };
      if (/\badapter\s*:/.test(config)) {
        return {
          warnings: [
            'This Astro app has a server adapter other than @astrojs/node: only its static pages are served. Use @astrojs/node (mode "standalone") to run its server.',
          ],
        };
      }
      return {};
    },
  },
  'sveltekit-1': {
    kind: 'server',
    start: 'node build',
    output: null,
    plan: async (app) => {
      const config = await app.config('svelte.config');
      if (config.includes('@sveltejs/adapter-static')) {
        const fallback = stringOption(config, 'fallback');
        return { outputDirectory: folder(stringOption(config, 'pages')) ?? 'build', spaFallback: fallback === 'index.html' };
      }
      const out = folder(stringOption(config, 'out')) ?? 'build';
      const warnings = config.includes('@sveltejs/adapter-node')
        ? []
        : [
            'SvelteKit builds a Node server only with @sveltejs/adapter-node: add it in svelte.config.js, or set a start command.',
          ];
      return { start: `node ${out}`, warnings };
    },
  },
  'react-router': {
    kind: 'server',
    start: 'react-router-serve ./build/server/index.js',
    output: null,
    plan: async (app) => {
      if (/\bssr\s*:\s*false\b/.test(await app.config('react-router.config'))) {
        return { outputDirectory: 'build/client', spaFallback: true };
      }
      return { start: app.hasScript('start') ? app.run('start') : app.exec('react-router-serve ./build/server/index.js') };
    },
  },
  remix: {
    kind: 'server',
    start: 'remix-serve ./build/server/index.js',
    output: null,
    plan: async (app) => {
      const entry = (await app.config('vite.config')).includes('@remix-run/dev') ? './build/server/index.js' : './build/index.js';
      return { start: app.hasScript('start') ? app.run('start') : app.exec(`remix-serve ${entry}`) };
    },
  },
  vite: {
    kind: 'static',
    spaFallback: true,
    plan: async (app) => ({ outputDirectory: folder(stringOption(await app.config('vite.config'), 'outDir')) ?? 'dist' }),
  },
  express: nodeServer,
  fastify: nodeServer,
  hono: nodeServer,
  koa: nodeServer,
  h3: nodeServer,
  nestjs: {
    kind: 'server',
    start: 'node dist/main',
    // `start` is `nest start`, which compiles first; `start:prod` runs the build.
    plan: (app) => ({ start: app.hasScript('start:prod') ? app.run('start:prod') : 'node dist/main' }),
  },
};

/** Static site generators and single-page apps whose @vercel/frameworks data is enough. */
const STATIC_SITES = new Set([
  'gatsby',
  'hexo',
  'eleventy',
  'docusaurus-2',
  'docusaurus',
  'preact',
  'dojo',
  'ember',
  'vue',
  'scully',
  'ionic-angular',
  'angular',
  'polymer',
  'svelte',
  'ionic-react',
  'create-react-app',
  'gridsome',
  'umijs',
  'sapper',
  'saber',
  'stencil',
  'brunch',
  'vitepress',
  'vuepress',
  'parcel',
  'sanity',
  'storybook',
]);
/** Client-side routing: unknown paths get index.html. */
const SPAS = new Set([
  'create-react-app',
  'vue',
  'angular',
  'ionic-angular',
  'ionic-react',
  'preact',
  'ember',
  'umijs',
  'svelte',
]);

/** Our own presets, for what is no framework. */
const OWN: Record<string, { name: string; rule: Rule; website: string | null }> = {
  node: { name: 'Node.js', rule: nodeServer, website: 'https://nodejs.org' },
  static: {
    name: 'Static HTML',
    website: null,
    rule: { kind: 'static', output: '.', plan: (app) => ({ buildCommand: app.hasScript('build') ? app.run('build') : null }) },
  },
  other: { name: 'Other', website: null, rule: { kind: 'server', output: null, plan: () => ({ buildCommand: null }) } },
};

const settingValue = (setting: object | undefined): string | null => {
  const value = setting && 'value' in setting ? setting.value : null;
  return typeof value === 'string' && value !== 'N/A' ? value : null;
};

/** `.next/cache/**` or `{.cache,public}/**` as folders. */
function cacheFolders(pattern: string | undefined): string[] {
  if (!pattern) return [];
  const base = pattern.replace(/\/\*\*$/, '');
  const alternatives = /^\{(.+)\}$/.exec(base)?.[1];
  return alternatives ? alternatives.split(',') : [base];
}

type SupportedFramework = Framework & { slug: string };
type Catalog = {
  supported: readonly SupportedFramework[];
  bySlug: ReadonlyMap<string, SupportedFramework>;
  presets: readonly Preset[];
};
let catalog: Promise<Catalog> | undefined;

/**
 * The frameworks we run, in @vercel/frameworks' order (the more specific first), loaded on first
 * use: the package is large (about 18 MB and 100 ms to load) and only builds and the presets list need it.
 */
function frameworkCatalog(): Promise<Catalog> {
  catalog ??= import('@vercel/frameworks').then(({ frameworks }) => {
    const supported = (frameworks as readonly Framework[]).filter(
      (f): f is SupportedFramework => f.slug !== null && (f.slug in RULES || STATIC_SITES.has(f.slug)),
    );
    return { supported, bySlug: new Map(supported.map((f) => [f.slug, f])), presets: presetList(supported) };
  });
  return catalog;
}

function ruleOf(slug: string): Rule {
  const own = OWN[slug];
  if (own) return own.rule;
  return RULES[slug] ?? { kind: 'static', spaFallback: SPAS.has(slug) };
}

export async function isPreset(slug: string): Promise<boolean> {
  return slug in OWN || (await frameworkCatalog()).bySlug.has(slug);
}

export async function presetName(slug: string): Promise<string> {
  return OWN[slug]?.name ?? (await frameworkCatalog()).bySlug.get(slug)?.name ?? slug;
}

/** Every preset, for `GET /api/presets` (`{ presets }`); the data changes only with the package. */
export async function listPresets(): Promise<readonly Preset[]> {
  return (await frameworkCatalog()).presets;
}

function presetList(supported: readonly SupportedFramework[]): Preset[] {
  return [
    ...supported.map((f): Preset => {
      const rule = ruleOf(f.slug);
      return {
        slug: f.slug,
        name: f.name,
        kind: rule.kind,
        installCommand: settingValue(f.settings.installCommand),
        buildCommand: settingValue(f.settings.buildCommand),
        startCommand: rule.start ?? null,
        outputDirectory:
          rule.output !== undefined ? rule.output : rule.kind === 'static' ? settingValue(f.settings.outputDirectory) : null,
        website: f.website ?? null,
      };
    }),
    ...(['node', 'static'] as const).map((slug): Preset => {
      const { name, rule, website } = OWN[slug]!;
      const output = rule.output ?? null;
      return {
        slug,
        name,
        kind: rule.kind,
        installCommand: null,
        buildCommand: null,
        startCommand: rule.start ?? null,
        outputDirectory: output,
        website,
      };
    }),
  ];
}

/** What the preset `slug` makes of the app: commands for its package manager, read from its files. */
export async function planPreset(slug: string, app: App): Promise<PresetPlan> {
  const framework = (await frameworkCatalog()).bySlug.get(slug);
  const rule = ruleOf(slug);
  const build = framework?.settings.buildCommand;
  const buildValue = settingValue(build);
  let buildCommand: string | null = null;
  if (app.pkg) {
    if (buildValue && build?.ignorePackageJsonScript) buildCommand = app.exec(buildValue);
    else if (app.hasScript('build')) buildCommand = app.run('build');
    else if (buildValue) buildCommand = app.exec(buildValue);
  }
  const base: PresetPlan = {
    buildCommand,
    outputDirectory:
      rule.kind === 'static'
        ? rule.output !== undefined
          ? rule.output
          : settingValue(framework?.settings.outputDirectory)
        : null,
    start: null,
    spaFallback: rule.spaFallback ?? false,
    cacheDirectories: rule.cache ?? cacheFolders(framework?.cachePattern),
    warnings: [],
  };
  const plan = { ...base, ...(await rule.plan?.(app, base)) };
  // A server serves no folder, a static site runs no process.
  if (plan.start !== null) plan.outputDirectory = null;
  else if (plan.outputDirectory === null) plan.spaFallback = false;
  return plan;
}

/**
 * The dependencies of package.json as compact JSON, what the package.json detectors of
 * @vercel/frameworks match: their `"dependencies":\s*{[^}]*...` patterns backtrack over the whole
 * text at each `"dependencies"`, which a crafted 1 MiB package.json could make last minutes.
 */
function dependencyText(pkg: PackageJson): string {
  const strings = (deps: unknown) =>
    Object.fromEntries(Object.entries(deps && typeof deps === 'object' ? deps : {}).filter(([, v]) => typeof v === 'string'));
  return JSON.stringify({ dependencies: strings(pkg.dependencies), devDependencies: strings(pkg.devDependencies) });
}

function hasDependency(pkg: PackageJson, name: string): boolean {
  const version = pkg.dependencies?.[name] ?? pkg.devDependencies?.[name];
  return typeof version === 'string' && version !== '';
}

/** The check of one @vercel/frameworks detector against the app's files (as @vercel/fs-detectors does it). */
async function detectorMatches(app: App, { path: file, matchContent, matchPackage }: FrameworkDetectionItem): Promise<boolean> {
  if (matchPackage) return app.pkg !== null && hasDependency(app.pkg, matchPackage);
  if (!file) return false;
  if (!matchContent) return app.files.exists(file);
  const text = file === 'package.json' ? app.pkg && dependencyText(app.pkg) : await app.files.read(file);
  return text !== null && new RegExp(matchContent, 'm').test(text);
}

async function frameworkMatches(app: App, framework: Framework): Promise<boolean> {
  const { every, some } = framework.detectors ?? {};
  if (!every && !some) return false;
  for (const item of every ?? []) if (!(await detectorMatches(app, item))) return false;
  if (some) {
    for (const item of some) if (await detectorMatches(app, item)) return true;
    return false;
  }
  return true;
}

/**
 * The preset of the app: the first framework of @vercel/frameworks' list that matches, else a Node
 * server (package.json with a way to start), else a static site (index.html at the root), else `node`
 * (package.json without a start) or `other`.
 */
export async function detectPreset(app: App): Promise<string> {
  if (app.pkg) {
    for (const framework of (await frameworkCatalog()).supported) {
      if (await frameworkMatches(app, framework)) return framework.slug;
    }
    if (await nodeStart(app)) return 'node';
  }
  if (await app.files.isFile('index.html')) return 'static';
  return app.pkg ? 'node' : 'other';
}
