/** The build configuration of an app: `resolveBuildPlan` for the pipeline, the presets and the launchbay.json schema for the API. */
export { LAUNCHBAY_JSON, type LaunchbayJson, launchbayJsonSchema, parseLaunchbayJson } from './launchbay-json';
export { type PackageJson, readPackageJson } from './package-manager';
export { directScriptCommand } from './package-script';
export { listPresets, type Preset } from './presets';
export { type BuildConfigError, type BuildPlanResult, resolveBuildPlan } from './resolve';
