/**
 * What a repository's branch would build as, before a project exists: its head commit is fetched
 * (shallow) into a temp folder and read the way a deployment reads it (launchbay.json, Procfile,
 * then framework detection). Used by the new-project flow for a git URL and for a provider's
 * repository alike.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LivePreset } from '@launchbay/contract';
import { resolveBuildPlan } from './config';
import { type FetchCommitOptions, fetchCommit } from './source';

export type DetectedSettings = Omit<LivePreset, 'repository_id'>;

/** The root directory asked for is not in the branch. */
export class MissingFolderError extends Error {}

const FETCH_MS = 60_000;

export async function detectBuildSettings(
  options: Omit<FetchCommitOptions, 'dir' | 'commit' | 'localRepo'> & { rootDirectory: string },
): Promise<DetectedSettings> {
  const { rootDirectory, ...access } = options;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'launchbay-preset-'));
  try {
    const commit = await fetchCommit({ timeoutMs: FETCH_MS, ...access, dir: path.join(dir, 'src') });
    const appDir = path.join(dir, 'src', rootDirectory);
    if (!fs.existsSync(appDir)) throw new MissingFolderError(`The folder ${rootDirectory} does not exist on ${options.branch}`);
    const plan = await resolveBuildPlan(appDir);
    const has = (name: string) => fs.existsSync(path.join(appDir, name));
    const base = {
      branch: options.branch,
      commit_sha: commit.sha,
      has_launchbay_json: has('launchbay.json'),
      has_procfile: has('Procfile'),
    };
    if ('errors' in plan) {
      return {
        ...base,
        preset: null,
        preset_name: null,
        install_command: null,
        build_command: null,
        start_command: null,
        output_directory: null,
        port: null,
        errors: plan.errors.map((e) => ({ path: `${e.source}: ${e.path}`, message: e.message })),
      };
    }
    return {
      ...base,
      preset: plan.preset,
      preset_name: plan.presetName,
      install_command: plan.installCommand,
      build_command: plan.buildCommand,
      start_command: plan.processes.find((p) => p.type === 'web')?.command ?? null,
      output_directory: plan.outputDirectory,
      port: plan.port,
      errors: [],
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
