/**
 * The build plan of an app's root directory. Field by field, the first source that sets it wins:
 * `launchbay.json`, then the project's settings (`BuildOverrides`), then a Procfile (processes only),
 * then the preset (detected from the files, or chosen in the settings). `sources` says which one
 * each field came from; `warnings` says when launchbay.json hides a setting.
 */
import type { FieldError } from '../../../lib/errors';
import type { ProcessSpec } from '../../runtime/driver';
import type { BuildOverrides, BuildPlan, BuildPlanSource } from '../build-plan';
import { AppFiles } from './app-files';
import { LAUNCHBAY_JSON, type LaunchbayJson, parseLaunchbayJson } from './launchbay-json';
import { detectPackageManager, installCommand, type PackageJson } from './package-manager';
import { App, detectPreset, folder, isPreset, planPreset, presetName } from './presets';
import { PROCFILE, parseProcfile } from './procfile';

/** An error of the build configuration: `source` names the file (or the settings) that holds it. */
export type BuildConfigError = FieldError & { source: BuildPlanSource };

export type BuildPlanResult = BuildPlan | { errors: BuildConfigError[] };

type Sources = BuildPlan['sources'];
type Field = keyof Sources;

const UNREADABLE = 'Must be a regular file of at most 1 MiB inside the root directory';

/** A setting that overrides: a non-blank string or a number; blank and null leave the field alone. */
function setting<T extends string | number>(value: T | null | undefined): T | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return (value.trim() === '' ? undefined : value.trim()) as T | undefined;
  return value;
}

/** Reads a configuration file; `undefined` when there is none. */
async function readConfig(files: AppFiles, name: string, errors: BuildConfigError[], source: BuildPlanSource) {
  const text = await files.read(name);
  if (text === null && (await files.present(name))) errors.push({ source, path: name, message: UNREADABLE });
  return text ?? undefined;
}

export async function resolveBuildPlan(appDir: string, overrides: BuildOverrides = {}): Promise<BuildPlanResult> {
  const files = new AppFiles(appDir);
  const errors: BuildConfigError[] = [];

  let json: LaunchbayJson = {};
  const jsonText = await readConfig(files, LAUNCHBAY_JSON, errors, 'launchbay.json');
  if (jsonText !== undefined) {
    const parsed = parseLaunchbayJson(jsonText);
    if (parsed.ok) json = parsed.value;
    else errors.push(...parsed.errors.map((e) => ({ ...e, source: 'launchbay.json' as const })));
  }

  let procfile: ProcessSpec[] = [];
  const procfileText = await readConfig(files, PROCFILE, errors, 'Procfile');
  if (procfileText !== undefined) {
    const parsed = parseProcfile(procfileText);
    procfile = parsed.processes;
    errors.push(...parsed.errors.map((e) => ({ ...e, source: 'Procfile' as const })));
  }

  let pkg: PackageJson | null = null;
  const pkgText = await readConfig(files, 'package.json', errors, 'detected');
  if (pkgText !== undefined) {
    try {
      const value: unknown = JSON.parse(pkgText.replace(/^\uFEFF/, ''));
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
      pkg = value as PackageJson;
    } catch {
      errors.push({ source: 'detected', path: 'package.json', message: 'Invalid JSON: expected an object' });
    }
  }

  const settings = {
    preset: setting(overrides.preset),
    installCommand: setting(overrides.installCommand),
    buildCommand: setting(overrides.buildCommand),
    startCommand: setting(overrides.startCommand),
    outputDirectory: setting(overrides.outputDirectory),
    port: setting(overrides.port),
    healthCheckPath: setting(overrides.healthCheckPath),
  };
  if (settings.preset !== undefined && !(await isPreset(settings.preset))) {
    errors.push({ source: 'settings', path: 'preset', message: `Unknown preset "${settings.preset}"` });
  }
  if (settings.outputDirectory !== undefined && folder(settings.outputDirectory) === null) {
    errors.push({ source: 'settings', path: 'outputDirectory', message: 'Must be a folder inside the root directory' });
  }
  if (settings.healthCheckPath !== undefined && !/^\/\S*$/.test(settings.healthCheckPath)) {
    errors.push({ source: 'settings', path: 'healthCheckPath', message: 'Must be a path starting with /' });
  }
  if (errors.length > 0) return { errors };

  const warnings: string[] = [];
  const packageManager = pkg ? await detectPackageManager(files, pkg) : null;
  if (packageManager) warnings.push(...packageManager.warnings);
  const app = new App(files, pkg, packageManager?.name ?? null);
  const preset = settings.preset ?? (await detectPreset(app));
  const detected = await planPreset(preset, app);
  warnings.push(...detected.warnings);

  const sources: Sources = {};
  /** The first layer that sets the field (`undefined` is unset; launchbay.json may set null). */
  function pick<T>(field: Field, layers: [BuildPlanSource, T | undefined][], fallback: T): T {
    for (const [source, value] of layers) {
      if (value !== undefined) {
        sources[field] = source;
        return value;
      }
    }
    sources[field] = 'detected';
    return fallback;
  }
  /** Says in the build log when launchbay.json hides a setting of the project. */
  function hidden(name: keyof typeof settings, jsonSets: boolean) {
    if (jsonSets && settings[name] !== undefined) warnings.push(`launchbay.json sets ${name}: the project setting is not used`);
  }
  hidden('installCommand', json.installCommand !== undefined);
  hidden('buildCommand', json.buildCommand !== undefined);
  hidden('startCommand', json.startCommand !== undefined || json.processes?.web !== undefined);
  hidden('outputDirectory', json.outputDirectory !== undefined);
  hidden('port', json.port !== undefined);
  hidden('healthCheckPath', json.healthCheckPath !== undefined);

  const install = pick<string | null>(
    'installCommand',
    [
      ['launchbay.json', json.installCommand],
      ['settings', settings.installCommand],
    ],
    packageManager ? installCommand(packageManager) : null,
  );
  const build = pick<string | null>(
    'buildCommand',
    [
      ['launchbay.json', json.buildCommand],
      ['settings', settings.buildCommand],
    ],
    detected.buildCommand,
  );
  let outputDirectory = pick<string | null>(
    'outputDirectory',
    [
      ['launchbay.json', json.outputDirectory === undefined ? undefined : folder(json.outputDirectory)],
      ['settings', settings.outputDirectory === undefined ? undefined : folder(settings.outputDirectory)],
    ],
    detected.outputDirectory,
  );

  // Processes: `web`, then the others, each from the first source that has it.
  const webLayers: [BuildPlanSource, string | undefined][] = [
    ['launchbay.json', json.startCommand ?? json.processes?.web],
    ['settings', settings.startCommand],
    ['Procfile', procfile.find((p) => p.type === 'web')?.command],
    ['detected', detected.start ?? undefined],
  ];
  const webLayer = webLayers.find(([, command]) => command !== undefined);
  let web = webLayer ? { source: webLayer[0], command: webLayer[1] as string } : null;
  const others: { source: BuildPlanSource; list: ProcessSpec[] } = json.processes
    ? {
        source: 'launchbay.json',
        list: Object.entries(json.processes)
          .filter(([type]) => type !== 'web')
          .map(([type, command]) => ({ type, command })),
      }
    : { source: 'Procfile', list: procfile.filter((p) => p.type !== 'web') };

  // An output folder that someone set makes a static site of an app whose start was only detected;
  // a start that someone set makes a server of an app whose output folder was only detected.
  const outputSet = sources.outputDirectory !== 'detected' && outputDirectory !== null;
  if (web?.source === 'detected' && outputSet) web = null;
  if (web && web.source !== 'detected' && sources.outputDirectory === 'detected') outputDirectory = null;

  const processes: ProcessSpec[] = [...(web ? [{ type: 'web', command: web.command }] : []), ...others.list];
  if (web) sources.processes = web.source;
  else if (others.list.length > 0) sources.processes = others.source;
  else sources.processes = 'detected';

  if (processes.length === 0 && outputDirectory === null) {
    const message =
      preset === 'other'
        ? 'Found nothing to deploy: add a package.json, an index.html, a Procfile or a launchbay.json, or set a start command in the project settings'
        : 'Found no way to start this app: set startCommand (or outputDirectory for a static site) in launchbay.json or in the project settings';
    return { errors: [{ source: 'detected', path: 'startCommand', message }] };
  }
  const kind = processes.length === 0 ? 'static' : 'server';
  sources.kind = kind === 'static' ? sources.outputDirectory : sources.processes;

  sources.preset = settings.preset !== undefined ? 'settings' : 'detected';
  sources.presetName = sources.preset;
  sources.packageManager = 'detected';
  sources.cacheDirectories = 'detected';
  sources.spaFallback = 'detected';

  return {
    preset,
    presetName: await presetName(preset),
    packageManager: packageManager?.name ?? null,
    installCommand: install,
    buildCommand: build,
    kind,
    outputDirectory,
    processes,
    port: pick<number | null>(
      'port',
      [
        ['launchbay.json', json.port],
        ['settings', settings.port],
      ],
      null,
    ),
    healthCheckPath: pick(
      'healthCheckPath',
      [
        ['launchbay.json', json.healthCheckPath],
        ['settings', settings.healthCheckPath],
      ],
      '/',
    ),
    requiredEnv: pick('requiredEnv', [['launchbay.json', json.requiredEnv]], []),
    cacheDirectories: detected.cacheDirectories,
    spaFallback: kind === 'static' && detected.spaFallback,
    crons: pick('crons', [['launchbay.json', json.crons]], []),
    warnings,
    sources,
  };
}
